import { KVM_METADATA_NAMESPACE, KVM2_METADATA_NAMESPACE } from '@egress-proxies/kvm-common';
import {
  describeRealBackend,
  describeRealSharedHost,
  otherFlavour as kvmLikeFlavour,
  DomainInterfaceAddressesSource as Source,
} from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createKvm2Provider } from '../src/index.js';
import { kvm2Flavour } from '../src/internal/index.js';

// kvm2 on a real libvirtd reached through a real private sshd: the family's shared sequences, held
// to what kvm2 must show there (its own namespace, the guest agent asked first). The guest does
// not need to boot: `domainType: qemu` (TCG) runs the firmware, which is all "running" needs.

const real = { flavour: kvm2Flavour, createProvider: createKvm2Provider, startEnv: startRealSuiteEnv };
const exporter = new InMemorySpanExporter();

describeRealBackend({
  ...real,
  tracing: {
    tracer: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
      'kvm2',
    ),
    exporter,
    contextManager: new AsyncLocalStorageContextManager(),
  },
  facts: {
    spanPrefix: 'kvm2',
    namespace: KVM2_METADATA_NAMESPACE,
    foreignNamespace: KVM_METADATA_NAMESPACE,
    addressSources: [Source.AGENT, Source.ARP, Source.LEASE],
  },
});

// A kvm entry on the same host and pool: the shared machinery in kvm's namespace.
describeRealSharedHost({ ...real, other: kvmLikeFlavour });
