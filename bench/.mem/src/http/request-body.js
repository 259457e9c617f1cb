import { lazyRequire } from '../base/lazy-require.js';
export function bodyParser(options) {
    let parse = null;
    return (ctx, next) => {
        parse ??= lazyRequire('koa-body').koaBody(options);
        return parse(ctx, next);
    };
}
