/**
 * Updates: `validateResource(crd, object, { old })`. The expected errors are what kube-apiserver v1.36.3
 * answered to a server-side dry-run update (PUT) of the same object over the stored `old`, except where
 * a comment says why ours differs or that the API server would refuse the CRD. The stored objects that
 * break the CRD (for ratcheting) were created before the rules, enum and list type were added.
 */
import { validateResource } from '../../../constructs/kit/validate';
import { RULES_NOT_CHECKED, resource } from './validate-fixtures';
import { update, widget, widgetCrd } from './validate-widget';

describe('update validation (transition rules, messageExpression, ratcheting)', () => {
  const v = { version: '8.0.12' };

  describe('transition rules', () => {
    it('compare with the stored value, and report the messageExpression', () => {
      expect(update({ version: '8.0.12' }, { version: '8.0.13' })).toEqual([]);
      expect(update({ version: '8.0.13' }, { version: '8.0.12' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
        },
      ]);
      expect(update({ version: '8.0.13' }, { version: '8.0.10' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
        },
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": unsupported downgrade from 8.0.13 to 8.0.10',
        },
      ]);
    });

    it('are skipped on create, with or without options', () => {
      expect(validateResource(widgetCrd, widget({ version: '8.0.12' })).errors).toEqual([]);
      expect(validateResource(widgetCrd, widget({ version: '8.0.12' }), {}).errors).toEqual([]);
      expect(validateResource(widgetCrd, widget({ version: '8.0.10' })).errors).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
        },
      ]);
    });

    it('see both objects defaulted: a version left out becomes the default, then compares', () => {
      expect(update({ version: '8.0.13' }, {})).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
        },
      ]);
      // Not a case the API server can meet (what it stores is defaulted already), nor one it reports.
      expect(update({ replicas: 3 }, { version: '8.0.11' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.11": unsupported downgrade from 8.0.12 to 8.0.11',
        },
      ]);
    });

    it('report evaluation errors like other rules, in cel-go words', () => {
      const pattern = "spec.version in body should match '^[0-9]+\\.[0-9]+\\.[0-9]+$'";
      expect(update({ version: '8.0.13' }, { version: '8.0' })).toEqual([
        { field: 'spec.version', message: `Invalid value: "8.0": ${pattern}` },
        {
          field: 'spec.version',
          message:
            'Invalid value: "string": index out of bounds: 2 evaluating rule: minimum supported MySQL version is 8.0.11',
        },
        {
          field: 'spec.version',
          message: 'Invalid value: "string": index out of bounds: 2 evaluating rule: unsupported downgrade',
        },
      ]);
      expect(update({ version: '8.0.13' }, { version: '8.0.x' })).toEqual([
        { field: 'spec.version', message: `Invalid value: "8.0.x": ${pattern}` },
        {
          field: 'spec.version',
          message:
            "Invalid value: \"string\": type conversion error from 'string' to 'int' evaluating rule: minimum supported MySQL version is 8.0.11",
        },
        {
          field: 'spec.version',
          message:
            "Invalid value: \"string\": type conversion error from 'string' to 'int' evaluating rule: unsupported downgrade",
        },
      ]);
      expect(
        update({ ...v, members: [{ name: 'a' }] }, { ...v, members: [{ name: 'a', role: 'x' }] }),
      ).toEqual([
        {
          field: 'spec.members[0]',
          message: 'Invalid value: "object": no such key: role evaluating rule: self.role == oldSelf.role',
        },
      ]);
    });

    it('correlate nested object properties by name, and are skipped where the stored object has none', () => {
      const engine = (name: string) => ({ ...v, database: { engine: { name } } });
      expect(update(engine('inno'), engine('myisam'))).toEqual([
        { field: 'spec.database.engine.name', message: 'Invalid value: "myisam": engine name is immutable' },
      ]);
      expect(update(engine('inno'), engine('inno'))).toEqual([]);
      expect(update({ ...v, database: {} }, engine('myisam'))).toEqual([]);
      expect(update(v, engine('myisam'))).toEqual([]);
    });

    it('correlate map values by key', () => {
      expect(
        update({ ...v, limits: { cpu: 4, mem: 8 } }, { ...v, limits: { cpu: 2, mem: 16, disk: 1 } }),
      ).toEqual([{ field: 'spec.limits[cpu]', message: 'Invalid value: 2: limits may not be lowered' }]);
    });

    it('correlate the items of a list-type map by their keys, not their index', () => {
      const before = {
        ...v,
        members: [
          { name: 'a', role: 'primary' },
          { name: 'b', role: 'replica' },
        ],
      };
      const after = {
        ...v,
        members: [
          { name: 'b', role: 'replica' },
          { name: 'c', role: 'x' },
          { name: 'a', role: 'replica' },
        ],
      };
      expect(update(before, after)).toEqual([
        { field: 'spec.members[2]', message: 'Invalid value: role of a changed from primary to replica' },
      ]);
    });

    it('run on an atomic list as a whole, but never on its items', () => {
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [2, 1] })).toEqual([
        { field: 'spec.ports', message: 'Invalid value: ports are immutable' },
      ]);
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [1, 2] })).toEqual([]);
      // The API server refuses this CRD ("oldSelf cannot be used on the uncorrelatable portion of the
      // schema"); were it stored, such a rule could never run, and here it does not.
      const crd = structuredClone(widgetCrd);
      const ports = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.ports;
      ports['x-kubernetes-validations'] = [];
      ports.items = { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] };
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [3, 4] }, crd)).toEqual([]);
    });

    it('are skipped with optionalOldSelf, which @bufbuild/cel cannot evaluate (the API server can)', () => {
      expect(validateResource(widgetCrd, widget({ ...v, tier: 'gold' })).errors).toEqual([]);
      // The API server: spec.tier: Invalid value: "silver": tier is immutable
      expect(update({ ...v, tier: 'gold' }, { ...v, tier: 'silver' })).toEqual([]);
    });

    it('are the rules with the identifier oldSelf, even as a loop variable, as cel-go sees them', () => {
      const crd = structuredClone(widgetCrd);
      const label = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.label;
      label['x-kubernetes-validations'] = [
        { rule: "'oldSelf' == self", message: 'not a literal' },
        // The API server skips this one on create too: cel-go's checker records the loop variable as a
        // reference to oldSelf.
        { rule: "[self].all(oldSelf, oldSelf == 'y')", message: 'a loop variable' },
        { rule: "[self].all(x, x == 'z')", messageExpression: "[self].map(oldSelf, oldSelf + '!')[0]" },
      ];
      expect(validateResource(crd, resource(crd, { ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": not a literal' },
        { field: 'spec.label', message: 'Invalid value: "x": x!' },
      ]);
    });
  });

  describe('messageExpression', () => {
    it('gives the message when the rule fails', () => {
      expect(validateResource(widgetCrd, widget({ ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": label x must start with w-' },
      ]);
      expect(validateResource(widgetCrd, widget({ ...v, detail: { mode: 'x', note: 'n' } })).errors).toEqual([
        { field: 'spec.detail', message: 'Invalid value: mode x: n' },
      ]);
    });

    it('falls back to message when blank or on several lines', () => {
      expect(validateResource(widgetCrd, widget({ ...v, blank: 'x', multiline: 'x' })).errors).toEqual([
        { field: 'spec.blank', message: 'Invalid value: "x": blank must not be x' },
        { field: 'spec.multiline', message: 'Invalid value: "x": multiline must not be x' },
      ]);
    });

    it('falls back to the failed rule when it fails and there is no message', () => {
      expect(validateResource(widgetCrd, widget({ ...v, detail: { mode: 'x' } })).errors).toEqual([
        { field: 'spec.detail', message: "Invalid value: failed rule: self.mode != 'x'" },
      ]);
    });

    it('falls back when it gives no string or does not parse (the API server refuses such a CRD)', () => {
      const crd = structuredClone(widgetCrd);
      const label = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.label;
      label['x-kubernetes-validations'] = [
        { rule: "self != 'x'", message: 'not a string', messageExpression: 'size(self)' },
        { rule: "self != 'x'", messageExpression: "'unclosed" },
      ];
      expect(validateResource(crd, resource(crd, { ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": not a string' },
        { field: 'spec.label', message: `Invalid value: "x": failed rule: self != 'x'` },
      ]);
    });
  });

  describe('ratcheting', () => {
    it('drops rule errors in values the update leaves as they were', () => {
      expect(update({ ...v, label: 'bad' }, { version: '8.0.13', label: 'bad' })).toEqual([]);
      expect(update({ ...v, label: 'bad' }, { ...v, label: 'bad2' })).toEqual([
        { field: 'spec.label', message: 'Invalid value: "bad2": label bad2 must start with w-' },
      ]);
    });

    it('drops them under an unchanged list whose items do not correlate', () => {
      expect(update({ ...v, tags: ['bad', 'c'] }, { version: '8.0.13', tags: ['bad', 'c'] })).toEqual([]);
      expect(update({ ...v, tags: ['bad', 'c'] }, { ...v, tags: ['bad', 'd'] })).toEqual([
        { field: 'spec.tags[0]', message: 'Invalid value: "bad": bad tag' },
      ]);
    });

    it('drops schema errors in unchanged values, so they block no rule', () => {
      expect(update({ ...v, color: 'green' }, { version: '8.0.13', color: 'green' })).toEqual([]);
      expect(update({ ...v, color: 'green' }, { ...v, color: 'pink' })).toEqual([
        { field: 'spec.color', message: 'Unsupported value: "pink": supported values: "red", "blue"' },
        RULES_NOT_CHECKED,
      ]);
    });

    it('checks list types only when the stored object passes them', () => {
      expect(update({ ...v, tags: ['a', 'a'] }, { ...v, tags: ['b', 'b'] })).toEqual([]);
      expect(update({ ...v, tags: ['a'] }, { ...v, tags: ['b', 'b'] })).toEqual([
        { field: 'spec.tags[1]', message: 'Duplicate value: "b"' },
      ]);
    });
  });

  it('keeps the stored status, and never mutates either object', () => {
    const old = widget({ version: '8.0.13', extra: 1 }, { status: { phase: 'Ready' } });
    const next = widget({ version: '8.0.13' }, { status: { phase: 'Mine' } });
    const before = structuredClone([old, next]);
    const { object, errors } = validateResource(widgetCrd, next, { old });
    expect(errors).toEqual([]);
    expect(object.status).toEqual({ phase: 'Ready' });
    expect(object.status).not.toBe(old.status);
    expect([old, next]).toEqual(before);
    // With no stored status, the update's own is dropped.
    expect(validateResource(widgetCrd, next, { old: widget(v) }).object.status).toBeUndefined();
  });

  it('treats an old value that is not an object as no old object', () => {
    expect(validateResource(widgetCrd, widget({ version: '8.0.1' }), { old: 'x' }).errors).toEqual([
      { field: 'spec.version', message: 'Invalid value: "8.0.1": minimum supported MySQL version is 8.0.11' },
    ]);
  });
});
