/**
 * What the supply-chain policy holds back of an upstream project, on its pages: the releases held back with
 * the rule and, under the cooldown, when each becomes available; the page of a held-back release or of a
 * project none of whose releases is offered yet; and the page of a project the policy refuses.
 */
import { RULE_LABELS, type Refusal } from '../../policy/policy.js';
import type { HeldRelease } from '../../policy/policy-source.js';
import { esc, page, timeElement, type Viewer } from './layout.js';

const projectPath = (name: string, version?: string) =>
  `/project/${encodeURIComponent(name)}/${version === undefined ? '' : `${encodeURIComponent(version)}/`}`;

/** The advisory's page, for a release an advisory blocks ('' otherwise). */
function advisoryLink(refusal: Refusal): string {
  return refusal.advisory ? ` <a class="advisory" href="${esc(refusal.advisory.url)}">${esc(refusal.advisory.id)}</a>` : '';
}

function when(refusal: Refusal): string {
  return refusal.visibleAt === undefined ? 'not while the rule stands' : `available from ${timeElement(refusal.visibleAt)}`;
}

/** The list of held-back releases ('' when there are none). */
export function heldSection(name: string, held: readonly HeldRelease[]): string {
  if (!held.length) return '';
  const items = held.map(
    ({ version, refusal }) =>
      `<li><a href="${esc(projectPath(name, version))}">${esc(version)}</a> <span class="badge held">held back</span> ${esc(RULE_LABELS[refusal.rule])}${advisoryLink(refusal)}; ${when(refusal)}\n<p class="reason">${esc(refusal.message)}</p></li>`,
  );
  return `<section aria-labelledby="held-h"><h2 id="held-h">Held back by policy</h2>
<p class="muted">This index's supply-chain policy does not offer these upstream releases to installers: pip skips them as yanked, and says why when one is pinned.${
    held.some((h) => h.refusal.advisory) ? ' Releases a security advisory blocks are left off the index altogether.' : ''
  }</p>
<ul class="plain held">
${items.join('\n')}
</ul></section>`;
}

export interface HeldView {
  name: string;
  displayName: string;
  /** The release asked for; null for the project page of a project with no release offered. */
  version: string | null;
  held: readonly HeldRelease[];
  /** Some release of the project is offered. */
  offered: boolean;
}

/** A held-back release, or a project none of whose releases is offered yet. */
export function renderHeld(view: HeldView, viewer: Viewer): string {
  const asked = view.version === null ? null : view.held.find((h) => h.version === view.version);
  const title = asked ? `${view.displayName} ${asked.version}` : view.displayName;
  const notice = asked
    ? `<p class="notice" role="note"><strong>Held back by policy</strong> (${esc(RULE_LABELS[asked.refusal.rule])}${advisoryLink(asked.refusal)}): this release is not offered to installers; ${when(asked.refusal)}.</p>`
    : '<p class="notice" role="note"><strong>Held back by policy:</strong> no release of this upstream project is offered to installers yet.</p>';
  const others = view.offered ? `<p><a href="${esc(projectPath(view.name))}">The releases offered</a>.</p>` : '';
  const main = `<h1>${esc(title)}</h1>\n${notice}\n${others}\n${heldSection(view.name, view.held)}`;
  return page({ title, viewer, path: projectPath(view.name, view.version ?? undefined) }, main);
}

/** An upstream project the policy refuses as a whole (deny list, or not on the allow list). */
export function renderRefused(name: string, refusal: Refusal, viewer: Viewer): string {
  const main = `<h1>${esc(name)}</h1>
<p class="notice" role="note"><strong>Refused by policy</strong> (${esc(RULE_LABELS[refusal.rule])}${advisoryLink(refusal)}): this index does not serve this upstream project.</p>
<p class="reason">${esc(refusal.message)}</p>`;
  return page({ title: name, viewer, path: projectPath(name) }, main);
}
