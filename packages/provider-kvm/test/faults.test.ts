import { describeRealFaults } from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { createKvmProvider, kvmFlavour } from '../src/index.js';

describeRealFaults({ flavour: kvmFlavour, createProvider: createKvmProvider, startEnv: startRealSuiteEnv });
