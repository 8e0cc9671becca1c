import { KVM_METADATA_NAMESPACE, KVM2_METADATA_NAMESPACE } from '@egress-proxies/kvm-common';
import {
  describeRealBackend,
  describeRealSharedHost,
  testFlavour as kvm2LikeFlavour,
  DomainInterfaceAddressesSource as Source,
} from '@egress-proxies/kvm-common/test';
import { startRealSuiteEnv } from '@egress-proxies/testenv-libvirt';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createKvmProvider } from '../src/index.js';
import { kvmFlavour } from '../src/internal/index.js';

// kvm on a real libvirtd reached through a real private sshd: the family's shared sequences, held
// to what kvm must show there (its own namespace, ARP asked first).

const real = { flavour: kvmFlavour, createProvider: createKvmProvider, startEnv: startRealSuiteEnv };
const exporter = new InMemorySpanExporter();

describeRealBackend({
  ...real,
  tracing: {
    tracer: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('kvm'),
    exporter,
    contextManager: new AsyncLocalStorageContextManager(),
  },
  facts: {
    spanPrefix: 'kvm',
    namespace: KVM_METADATA_NAMESPACE,
    foreignNamespace: KVM2_METADATA_NAMESPACE,
    addressSources: [Source.ARP, Source.AGENT, Source.LEASE],
  },
});

// A kvm2 entry on the same host and pool: the shared machinery in kvm2's namespace.
describeRealSharedHost({ ...real, other: kvm2LikeFlavour });
