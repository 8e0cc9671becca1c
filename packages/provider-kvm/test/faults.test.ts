import { describeRealFaults } from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { createKvmProvider } from '../src/index.js';
import { kvmFlavour } from '../src/internal/index.js';

describeRealFaults({ flavour: kvmFlavour, createProvider: createKvmProvider, startEnv: startRealSuiteEnv });
