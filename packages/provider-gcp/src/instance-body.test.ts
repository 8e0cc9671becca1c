import type { CreateRequest } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { parseGcpConfig } from './config.js';
import { buildInstanceBody, redactedBody } from './instance-body.js';

const req: CreateRequest = {
  name: 'proxy-0123456789abcdef',
  namespace: 'default',
  uid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  port: 3128,
  cloudInit: '#cloud-config\npackages: [squid]\n',
  installation: 'Cluster-A',
  placement: {
    zone: 'europe-west1-b',
    machineType: 'e2-small',
    image: 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64',
  },
};
const placement = { zone: 'europe-west1-b', machineType: 'e2-small', image: req.placement.image! };

describe('buildInstanceBody', () => {
  it('builds the external-IP body with marks, tag, disk and user-data', () => {
    const cfg = parseGcpConfig({ project: 'my-project', labels: { team: 'net' } });
    expect(buildInstanceBody(cfg, req, placement)).toEqual({
      name: 'proxy-0123456789abcdef',
      machineType: 'zones/europe-west1-b/machineTypes/e2-small',
      labels: {
        team: 'net',
        'proxy-operator-managed': 'true',
        'proxy-operator-uid': '0f8fad5b-d9cb-469f-a165-70867728950e',
        'proxy-operator-installation': expect.stringMatching(/^cluster-a-[0-9a-f]{8}$/),
      },
      tags: { items: ['egress-proxy'] },
      networkInterfaces: [
        {
          network: 'global/networks/default',
          accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT' }],
        },
      ],
      disks: [
        {
          boot: true,
          autoDelete: true,
          type: 'PERSISTENT',
          initializeParams: { sourceImage: req.placement.image, diskSizeGb: '10' },
        },
      ],
      metadata: { items: [{ key: 'user-data', value: req.cloudInit }] },
    });
  });

  it('internal mode has no access config; subnetwork and service account are used when set', () => {
    const cfg = parseGcpConfig({
      project: 'my-project',
      ipMode: 'internal',
      network: 'vpc',
      subnetwork: 'proxies',
      serviceAccount: 'px@my-project.iam.gserviceaccount.com',
      diskSizeGb: 30,
    });
    const body = buildInstanceBody(cfg, { ...req, installation: undefined }, placement);
    expect(body.networkInterfaces).toEqual([
      {
        network: 'global/networks/vpc',
        subnetwork: 'regions/europe-west1/subnetworks/proxies',
        accessConfigs: [],
      },
    ]);
    expect(body.serviceAccounts).toEqual([
      {
        email: 'px@my-project.iam.gserviceaccount.com',
        scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      },
    ]);
    expect(body.labels).not.toHaveProperty('proxy-operator-installation');
    expect((body.disks![0] as { initializeParams: { diskSizeGb: string } }).initializeParams.diskSizeGb).toBe(
      '30',
    );
  });

  it('keeps a zonal machine type path as given and marks win over configured labels', () => {
    const cfg = parseGcpConfig({ project: 'my-project' });
    const body = buildInstanceBody(cfg, req, {
      ...placement,
      machineType: 'zones/europe-west1-b/machineTypes/n2-standard-2',
    });
    expect(body.machineType).toBe('zones/europe-west1-b/machineTypes/n2-standard-2');
  });

  it('is pure: same input, same output, input untouched', () => {
    const cfg = parseGcpConfig({ project: 'my-project' });
    const copy = structuredClone(req);
    expect(buildInstanceBody(cfg, req, placement)).toEqual(buildInstanceBody(cfg, req, placement));
    expect(req).toEqual(copy);
  });

  it('redacts the user-data for logs', () => {
    const cfg = parseGcpConfig({ project: 'my-project' });
    const red = redactedBody(buildInstanceBody(cfg, req, placement));
    expect(JSON.stringify(red)).not.toContain('squid');
    expect(red.metadata?.items).toEqual([{ key: 'user-data', value: '[redacted]' }]);
  });
});
