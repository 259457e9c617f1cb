import { classify } from './upstream-error.js';
function observed(handler, observer) {
    return {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
        onResponseStart: (controller, statusCode, headers, statusMessage) => {
            if (statusCode >= 500)
                observer.failure('status');
            return handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
        },
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => {
            // A request larder itself called off (a deadline, every client gone) is not the upstream's failure.
            if (!controller?.aborted)
                observer.failure(classify(error).kind);
            return handler.onResponseError?.(controller, error);
        },
    };
}
export function observing(observer) {
    return (dispatch) => (opts, handler) => {
        observer.request();
        return dispatch(opts, observed(handler, observer));
    };
}
