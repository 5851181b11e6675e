/** The watch events of the controller's own writes (controller/reconcile/echoes.ts). */
import { Echoes } from '../../../controller/reconcile/echoes';

const KEY = 'apps/v1/Deployment/ns/web';

it('knows the version a write returned when its event comes, for every watch that hears it', () => {
  const echoes = new Echoes();
  echoes.send(KEY)('101');
  expect(echoes.heard(KEY, '101')).toBe(true);
  expect(echoes.heard(KEY, '101')).toBe(true); // another kind's watch of Deployments
  expect(echoes.heard(KEY, '102')).toBe(false); // the Deployment controller's status
  expect(echoes.heard('apps/v1/Deployment/ns/other', '101')).toBe(false);
});

it('drops the older writes once a newer echo is heard (a watch brings versions in order)', () => {
  const echoes = new Echoes();
  echoes.wrote(KEY, '101');
  echoes.wrote(KEY, '105');
  expect(echoes.heard(KEY, '105')).toBe(true);
  expect(echoes.heard(KEY, '101')).toBe(false);
});

it('keeps a few versions per child, and none of a child deleted', () => {
  const echoes = new Echoes();
  for (const v of ['1', '2', '3', '4', '5']) echoes.wrote(KEY, v);
  expect(echoes.heard(KEY, '1')).toBe(false); // never heard (a relist skipped it): not kept for ever
  expect(echoes.heard(KEY, '2')).toBe(true);
  echoes.wrote(KEY, '6');
  expect(echoes.event(KEY, '6', 'delete')).toBe(false);
  expect(echoes.heard(KEY, '6')).toBe(false);
});

it('makes an event that comes before the write’s answer wait for it, then judges it', async () => {
  const echoes = new Echoes();
  const answered = echoes.send(KEY);
  const early = echoes.heard(KEY, '101');
  const other = echoes.heard(KEY, '100');
  expect(early).toBeInstanceOf(Promise);
  answered('101');
  await expect(early).resolves.toBe(true);
  await expect(other).resolves.toBe(false);
  answered('999'); // answered once
  expect(echoes.heard(KEY, '999')).toBe(false);
});

it('takes an event during a write that fails for news', async () => {
  const echoes = new Echoes();
  const answered = echoes.send(KEY);
  const event = echoes.heard(KEY, '101');
  answered(undefined);
  await expect(event).resolves.toBe(false);
  expect(echoes.heard(KEY, '101')).toBe(false); // no write in flight: judged at once
});

it('judges the waiting events once every write of the child in flight is answered', async () => {
  const echoes = new Echoes();
  const first = echoes.send(KEY);
  const second = echoes.send(KEY);
  const event = echoes.heard(KEY, '102');
  let judged: boolean | undefined;
  void (event as Promise<boolean>).then((echo) => (judged = echo));
  first('101');
  await Promise.resolve();
  expect(judged).toBeUndefined();
  second('102');
  await expect(event).resolves.toBe(true);
});
