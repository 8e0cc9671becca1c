// The kvm provider's error codes and check reasons (shared with kvm2 through kvm-common).
export { classify, KvmCheckReason, KvmErrorCode } from '@egress-proxies/kvm-common';
