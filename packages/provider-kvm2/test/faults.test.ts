import { describeRealFaults } from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { createKvm2Provider, kvm2Flavour } from '../src/index.js';

describeRealFaults({
  flavour: kvm2Flavour,
  createProvider: createKvm2Provider,
  startEnv: startRealSuiteEnv,
});
