import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as contract from '../src/index.js';

// The documents describe the code; these checks catch the two drifting apart.
const doc = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../docs/${name}`, import.meta.url)), 'utf8');

/** The cells of every markdown table row, trimmed (the formatter pads them). */
const rows = (text: string): string[][] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('|') && l.endsWith('|'))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
const firstCells = (text: string) => new Set(rows(text).map((r) => r[0]));

describe('docs/contract.md', () => {
  const text = doc('contract.md');

  it('has a table row for every profile axis', () => {
    const first = firstCells(text);
    for (const axis of contract.PROFILE_AXES) expect(first.has(`\`${axis}\``), axis).toBe(true);
  });

  it('lists exactly the allowed answers of every axis in its row', () => {
    for (const [axis, answers] of Object.entries(contract.PROFILE_ANSWERS)) {
      const cells = rows(text).find((r) => r[0] === `\`${axis}\``) ?? [];
      const allowed = [...(cells[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      expect(allowed, axis).toEqual(answers);
    }
  });

  it('lists every error code and every shared check reason', () => {
    const first = firstCells(text);
    for (const code of Object.values(contract.ErrorCode)) expect(first.has(`\`${code}\``), code).toBe(true);
    for (const reason of Object.values(contract.CheckReason))
      expect(first.has(`\`${reason}\``), reason).toBe(true);
  });

  it('names every provider type', () => {
    for (const type of contract.PROVIDER_TYPES) expect(text, type).toContain(`\`${type}\``);
  });

  it('keeps the conformance list section as the two markers only', () => {
    const section = text.slice(text.indexOf('## Conformance test list'));
    expect(section.trim().split('\n')).toEqual([
      '## Conformance test list',
      '',
      '<!-- conformance-list:start -->',
      '<!-- conformance-list:end -->',
    ]);
  });
});

describe('docs/marks.md', () => {
  const text = doc('marks.md');

  it('documents every mark constant by name and value', () => {
    const marks: Record<string, unknown> = {
      MANAGED_LABEL: contract.MANAGED_LABEL,
      MANAGED_VALUE: contract.MANAGED_VALUE,
      UID_LABEL: contract.UID_LABEL,
      INSTALLATION_LABEL: contract.INSTALLATION_LABEL,
      CREATED_AT_LABEL: contract.CREATED_AT_LABEL,
      INSTANCE_NAME_PREFIX: contract.INSTANCE_NAME_PREFIX,
      PROXMOX_TAG: contract.PROXMOX_TAG,
      KVM2_METADATA_NAMESPACE: contract.KVM2_METADATA_NAMESPACE,
      KVM2_METADATA_PREFIX: contract.KVM2_METADATA_PREFIX,
      KVM_METADATA_NAMESPACE: contract.KVM_METADATA_NAMESPACE,
      KVM_METADATA_PREFIX: contract.KVM_METADATA_PREFIX,
      METADATA_ELEMENT: contract.METADATA_ELEMENT,
      LOCAL_INSTANCES_DIR: contract.LOCAL_INSTANCES_DIR,
      LOCAL_STATE_FILE_SUFFIX: contract.LOCAL_STATE_FILE_SUFFIX,
      LOCAL_STATE_KIND: contract.LOCAL_STATE_KIND,
    };
    for (const [name, value] of Object.entries(marks)) {
      expect(text, name).toContain(`\`${name}\``);
      expect(text, `${name} value`).toContain(String(value));
    }
    for (const key of Object.values(contract.PROXMOX_DESCRIPTION_KEYS)) expect(text).toContain(`${key}=`);
    for (const attr of Object.values(contract.METADATA_ATTRIBUTES)) expect(text).toContain(`\`${attr}\``);
    for (const field of Object.values(contract.LOCAL_STATE_FIELDS)) expect(text).toContain(`"${field}"`);
  });
});

describe('docs/provider-spec-template.md', () => {
  it('asks one question per axis, each with Answer and Evidence lines', () => {
    const text = doc('provider-spec-template.md');
    for (const axis of contract.PROFILE_AXES) {
      const at = text.search(new RegExp(`^### C\\d+\\. ${axis}$`, 'm'));
      expect(at, axis).toBeGreaterThan(-1);
      const entry = text.slice(at, text.indexOf('\n### ', at + 1));
      expect(entry, axis).toContain('Answer:');
      expect(entry, axis).toContain('Evidence:');
    }
  });
});
