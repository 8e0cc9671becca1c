// Command kube-node is the node side of the test cluster in one binary: kubelet, kube-proxy,
// kube-scheduler and kube-controller-manager from the upstream Go module, and kubectl for the
// tests, chosen by the first argument (`kube-node kubelet --config ...`). One link instead of four keeps the cold build
// short. Test infrastructure only; no product code lives here.
package main

import (
	"context"
	"fmt"
	"os"
	_ "time/tzdata" // CronJob time zones, as the upstream controller-manager main has it

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectl "k8s.io/kubectl/pkg/cmd"
	cm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	commands := map[string]func() *cobra.Command{
		"kubelet":                 func() *cobra.Command { return kubelet.NewKubeletCommand(context.Background()) },
		"kube-proxy":              proxy.NewProxyCommand,
		"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
		"kube-controller-manager": cm.NewControllerManagerCommand,
		"kubectl":                 kubectl.NewDefaultKubectlCommand,
	}
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: kube-node kubelet|kube-proxy|kube-scheduler|kube-controller-manager|kubectl [flags]")
		os.Exit(2)
	}
	command := commands[os.Args[1]]()
	command.SetArgs(os.Args[2:])
	os.Exit(cli.Run(command))
}
