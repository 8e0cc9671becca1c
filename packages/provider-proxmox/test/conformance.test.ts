import { describeProviderConformance } from '@egress-proxies/conformance';
import { PROXMOX_CONFORMANCE_EXCLUDES, proxmoxConformanceHarness } from '../src/test/index.js';

describeProviderConformance(proxmoxConformanceHarness(), { exclude: PROXMOX_CONFORMANCE_EXCLUDES });
