import { describeRealFaults } from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { createKvm2Provider } from '../src/index.js';
import { kvm2Flavour } from '../src/internal/index.js';

describeRealFaults({
  flavour: kvm2Flavour,
  createProvider: createKvm2Provider,
  startEnv: startRealSuiteEnv,
});
