/**
 * "Use this index" and publishing snippets with this server's URL filled in; the same forms as the README's
 * tested snippets. Plain `http://` needs the trusted-host / verify_ssl lines; `https://` drops them.
 */
function parts(target) {
    const url = new URL(`${target.base}/`);
    const insecure = url.protocol === 'http:';
    return { simple: `${target.base}/simple/`, upload: `${target.base}/legacy/`, host: url.hostname, insecure };
}
/** How to install from this index. */
export function installSnippets(target) {
    const { simple, host, insecure } = parts(target);
    const trusted = insecure ? ` --trusted-host ${host}` : '';
    const withAuth = target.readAuth ? simple.replace('://', '://USER:PASSWORD@') : simple;
    return [
        { id: 'pip', title: 'pip', where: 'on the command line', text: `pip install --index-url ${withAuth}${trusted} PROJECT` },
        {
            id: 'pip-conf',
            title: 'pip.conf',
            where: 'in ~/.config/pip/pip.conf (or pip.ini on Windows)',
            text: `[global]\nindex-url = ${withAuth}${insecure ? `\ntrusted-host = ${host}` : ''}`,
        },
        {
            id: 'uv',
            title: 'uv',
            where: 'in pyproject.toml or uv.toml',
            text: `[[tool.uv.index]]\nname = "larder"\nurl = "${simple}"\npublish-url = "${target.base}/legacy/"\ndefault = true`,
        },
        {
            id: 'poetry',
            title: 'poetry',
            where: 'on the command line (poetry 1.8 and 2.x)',
            text: `poetry source add --priority=primary larder ${simple}${target.readAuth ? '\npoetry config http-basic.larder USER PASSWORD' : ''}`,
        },
        {
            id: 'pdm',
            title: 'pdm',
            where: 'in pyproject.toml (the name pypi replaces PyPI)',
            text: `[[tool.pdm.source]]\nname = "pypi"\nurl = "${simple}"${insecure ? '\nverify_ssl = false' : ''}${target.readAuth ? '\nusername = "USER"\npassword = "PASSWORD"' : ''}`,
        },
    ];
}
/** How to upload to this index. */
export function publishSnippets(target) {
    const { upload } = parts(target);
    return [
        {
            id: 'pypirc',
            title: 'twine and flit (.pypirc)',
            where: 'in ~/.pypirc, then twine upload --repository larder dist/* or flit publish --repository larder',
            text: `[distutils]\nindex-servers = larder\n\n[larder]\nrepository = ${upload}\nusername = __token__\npassword = YOUR-LARDER-TOKEN`,
        },
        { id: 'twine', title: 'twine', where: 'on the command line', text: 'twine upload --repository larder dist/*' },
        {
            id: 'poetry-publish',
            title: 'poetry',
            where: 'on the command line',
            text: `poetry config repositories.larder ${upload}\npoetry config http-basic.larder USER PASSWORD\npoetry publish --build --repository larder`,
        },
        {
            id: 'pdm-publish',
            title: 'pdm',
            where: 'on the command line',
            text: `pdm config repository.larder.url ${upload}\npdm config repository.larder.username USER\npdm config repository.larder.password PASSWORD\npdm publish --repository larder`,
        },
        { id: 'uv-publish', title: 'uv', where: 'with the index above in pyproject.toml', text: 'uv publish --index larder --token YOUR-LARDER-TOKEN' },
    ];
}
