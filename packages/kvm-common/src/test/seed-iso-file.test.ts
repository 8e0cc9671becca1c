import { buildSeedIso } from '@egress-proxies/nocloud';
import { describe, expect, it } from 'vitest';
import { rootFileOfIso } from './seed-iso-file.js';

describe('rootFileOfIso', () => {
  const networkConfig = '{\n  "version": 2\n}\n';
  const image = buildSeedIso({ userData: '#cloud-config\n', metaData: 'instance-id: a\n', networkConfig });

  it('reads a file of the seed by its level-1 name, exactly as built', () => {
    expect(new TextDecoder().decode(rootFileOfIso(image, 'NETWORK_.;1'))).toBe(networkConfig);
    expect(new TextDecoder().decode(rootFileOfIso(image, 'USER_DAT.;1'))).toBe('#cloud-config\n');
  });

  it('is undefined for a file the seed lacks, and for bytes that are no ISO image', () => {
    const without = buildSeedIso({ userData: '#cloud-config\n', metaData: 'instance-id: a\n' });
    expect(rootFileOfIso(without, 'NETWORK_.;1')).toBeUndefined();
    expect(rootFileOfIso(new Uint8Array(64 * 1024), 'NETWORK_.;1')).toBeUndefined();
  });
});
