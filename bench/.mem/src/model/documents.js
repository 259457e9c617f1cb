/** The entries of a ProjectListInput, batch by batch. */
export async function* listBatches(input) {
    for await (const item of input)
        yield Array.isArray(item) ? item : [item];
}
