/** A tiny seeded PRNG (mulberry32) for property tests, so that a failure reproduces: the testing kit's. */
export { seededRandom as mulberry32 } from '../../testing/schema-samples';
