/**
 * The one stylesheet and the small script of the web pages, served by larder itself (no fonts or CDNs: the
 * site may be air-gapped). The script only adds copy buttons; every page works without it.
 */
import { createHash } from 'node:crypto';

export const STYLESHEET = `:root{--fg:#1d1d1f;--muted:#57575c;--bg:#fff;--panel:#f4f5f7;--line:#d6d8dc;--accent:#0b5cad;--warn:#8a4b00;--warnbg:#fff4e0;--ok:#136c2e}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0;display:flex;flex-direction:column;min-height:100vh}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,summary:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}
.skip:focus{left:.5rem;z-index:9}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.site{background:#17324d;color:#fff}
header.site a{color:#fff}
.bar{max-width:64rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:center}
.brand{font-weight:700;font-size:1.25rem;text-decoration:none}
form.search{display:flex;flex:1 1 16rem;gap:.4rem}
form.search input{flex:1;min-width:0}
nav{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
input,button,textarea{font:inherit;padding:.35rem .6rem;border:1px solid var(--line);border-radius:4px}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
button.link{background:none;border:0;color:inherit;text-decoration:underline;padding:0}
button.secondary{background:var(--panel);color:var(--fg);border-color:var(--line)}
form.inline{display:inline}
main{flex:1;width:100%;min-width:0;max-width:64rem;margin:0 auto;padding:1rem;overflow-wrap:break-word}
main:focus{outline:none}
footer.site{border-top:1px solid var(--line);color:var(--muted);font-size:.875rem}
footer.site p{max-width:64rem;margin:0 auto;padding:.8rem 1rem}
h1{font-size:1.75rem;margin:.4rem 0;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}
.badge{display:inline-block;font-size:.75rem;padding:0 .4rem;border-radius:3px;border:1px solid var(--line);background:var(--panel);vertical-align:middle}
.badge.yanked{background:var(--warnbg);border-color:#e0b070;color:var(--warn)}
.badge.private{background:#e6f1fb;border-color:#9cc3ea}
.notice{background:var(--warnbg);border-left:4px solid #e0a040;padding:.6rem .8rem;margin:1rem 0}
.notice.ok{background:#e9f6ec;border-color:var(--ok)}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
@media (max-width:30rem){dl.facts{grid-template-columns:minmax(0,1fr);gap:0}dl.facts dd{margin-bottom:.5rem}}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
code{overflow-wrap:anywhere}
pre{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:.6rem .8rem;overflow-x:auto;max-width:100%}
.copyable{display:flex;gap:.4rem;align-items:stretch}
.copyable pre{flex:1;min-width:0;margin:0}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 16rem;gap:1.5rem}
@media (max-width:48rem){.layout{grid-template-columns:minmax(0,1fr)}}
ul.plain{list-style:none;padding:0;margin:0}
ul.results li{padding:.6rem 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
ul.versions li{padding:.2rem 0;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
table.files{table-layout:fixed}
col.c-type{width:4.5rem}
col.c-size{width:5.5rem}
col.c-time{width:7.5rem}
col.c-hash{width:30%}
td.file,td.name{overflow-wrap:anywhere}
td.hash{font-family:ui-monospace,monospace;font-size:.75rem;word-break:break-all}
@media (max-width:40rem){table.files,table.files tbody,table.files tr,table.files td{display:block;width:auto}table.files thead,table.files colgroup{display:none}table.files tr{border-bottom:1px solid var(--line);padding:.4rem 0}table.files td{border:0;padding:.1rem 0}table.files td::before{content:attr(data-label) ": ";font-weight:600;font-family:system-ui,sans-serif;font-size:.875rem}}
.description{border-top:1px solid var(--line);margin-top:1rem;overflow-wrap:anywhere}
.description img{max-width:100%;height:auto}
.description table{display:block;overflow-x:auto;max-width:100%}
.description th,.description td{overflow-wrap:normal}
.description h1{font-size:1.5rem}
.description h2{font-size:1.2rem}
.description h3{font-size:1.05rem}
.description pre.description-text{white-space:pre-wrap}
.pager{display:flex;gap:1rem;margin:1rem 0}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
form.stack input{width:100%;max-width:22rem}
form.stack button{margin-top:.8rem}
.owner{border:1px dashed var(--line);border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
select{font:inherit;padding:.35rem .6rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
fieldset{border:1px solid var(--line);border-radius:4px;margin:.8rem 0 0;padding:.3rem .8rem .6rem;max-width:22rem;min-width:0}
legend{font-weight:600;padding:0 .3rem}
.choices label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.3rem 0;overflow-wrap:anywhere}
form.stack .choices input{width:auto;flex:none}
.nested{margin-left:1.6rem}
details.confirm{display:inline-block;margin-top:.3rem}
details.confirm p{margin:.4rem 0}
.table-wrap{position:relative}
.secret pre{white-space:pre-wrap;word-break:break-all}
@media (max-width:40rem){
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{border-bottom:1px solid var(--line);padding:.5rem 0}
table.stack td{border:0;padding:.1rem 0;overflow-wrap:anywhere}
table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
}
form.home-search{margin:1rem 0}
form.home-search label{margin-top:0}
form.home-search .copyable input{flex:1;min-width:0}
.badge.held{background:var(--warnbg);border-color:#e0b070;color:var(--warn)}
ul.held li{padding:.5rem 0;border-bottom:1px solid var(--line)}
.reason{overflow-wrap:anywhere}
ul.held .reason{margin:.2rem 0 0;color:var(--muted);font-size:.875rem}
table.stats td:first-child,table.stats th:first-child{width:2.5rem}
table.stats td:last-child{white-space:nowrap}
`;

export const SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function (block) {
  if (!navigator.clipboard) return;
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy: ' + block.getAttribute('data-copy'));
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(block.querySelector('pre').textContent.trim()).then(function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = 'Copy'; }, 1500);
    });
  });
  block.appendChild(button);
});
`;

/** Changes with the assets, so pages can let browsers keep them for a year. */
export const ASSET_VERSION = createHash('sha256').update(STYLESHEET).update(SCRIPT).digest('hex').slice(0, 12);
