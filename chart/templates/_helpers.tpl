{{/* The chart's name, overridable. */}}
{{- define "egress-proxies.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The release-scoped prefix of every object name: the release name when it already contains the
chart name (so `helm install egress-proxies` keeps the names config/default uses), else
"<release>-<chart>". Two releases never share a name.
*/}}
{{- define "egress-proxies.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The operator's own name: Deployment, ServiceAccount, ClusterRole, Lease. */}}
{{- define "egress-proxies.operatorName" -}}
{{- include "egress-proxies.fullname" . }}-operator
{{- end -}}

{{- define "egress-proxies.selector" -}}
app.kubernetes.io/name: {{ include "egress-proxies.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "egress-proxies.labels" -}}
{{ include "egress-proxies.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* Where the gcp key Secret is mounted; GOOGLE_APPLICATION_CREDENTIALS points at its key. */}}
{{- define "egress-proxies.gcpKeyPath" -}}
/etc/egress-proxies/secrets/gcp/{{ .Values.credentials.gcpKey }}
{{- end -}}

{{/* "true" when some configured provider has the type given as the list's second item. */}}
{{- define "egress-proxies.hasProviderType" -}}
{{- $root := index . 0 -}}
{{- $type := index . 1 -}}
{{- range $root.Values.providers }}{{ if eq .type $type }}true{{ end }}{{ end -}}
{{- end -}}
