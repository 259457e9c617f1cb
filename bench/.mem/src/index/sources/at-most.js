/** Waiting for something that goes on regardless: its result if it comes within `ms`, else `late()`. */
export async function atMost(pending, ms, late) {
    let timer;
    const timeout = new Promise((resolve) => {
        timer = setTimeout(() => resolve(late()), ms);
    });
    try {
        return await Promise.race([pending, timeout]);
    }
    finally {
        clearTimeout(timer);
    }
}
