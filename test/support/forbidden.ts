/**
 * Loaded after the test framework in the cluster project (jest.config.js): a test after which a controller
 * it ran has had a 403 fails, naming the request. The controllers run with exactly the rules the install
 * derives (support/controller-role.ts), so this is the check that the derivation misses nothing.
 */
import { newForbidden } from './controller';

const check = async () => {
  const forbidden = await newForbidden();
  if (forbidden.length > 0) {
    throw new Error(`the controller was refused by RBAC:\n${forbidden.join('\n')}`);
  }
};

afterEach(check);
afterAll(check);
