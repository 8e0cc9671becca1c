{{- define "egress-proxies.name" -}}egress-proxies-operator{{- end -}}
{{- define "egress-proxies.labels" -}}
app.kubernetes.io/name: egress-proxies
app.kubernetes.io/component: operator
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
{{- define "egress-proxies.selector" -}}
app.kubernetes.io/name: egress-proxies
app.kubernetes.io/component: operator
{{- end -}}
