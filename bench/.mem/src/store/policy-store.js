/**
 * What the supply-chain policy keeps: break-glass exemptions from the release cooldown (who, when, why)
 * and the upstream projects seen with the name of a private project. Reads are synchronous and see other
 * processes' writes (the CLI adds exemptions while the server runs); writes resolve once durable.
 */
export {};
