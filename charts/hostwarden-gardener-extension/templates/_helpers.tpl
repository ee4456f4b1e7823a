{{/* The ControllerRegistration's name is the release name gardenlet uses. */}}
{{- define "hw.name" -}}
{{- printf "gardener-extension-%s" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "hw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hw.labels" -}}
{{ include "hw.selectorLabels" . }}
app.kubernetes.io/part-of: hostwarden
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* "true" when gardenlet deploys to a garden runtime cluster (gardener.runtimeCluster.enabled). */}}
{{- define "hw.runtimeCluster" -}}
{{- with .Values.gardener.runtimeCluster }}{{ if .enabled }}true{{ end }}{{ end -}}
{{- end -}}

{{/* `hostwarden dnsrecord-controller` flags, one `--flag=value` item each. */}}
{{- define "hw.args" -}}
- "dnsrecord-controller"
{{- range .Values.dnsrecordTypes }}
- {{ printf "--dnsrecord-types=%s" . | quote }}
{{- end }}
{{- /* As provider-aws's chart: on a garden runtime cluster the class is garden; else the values'. */}}
{{- if include "hw.runtimeCluster" . }}
- "--extension-classes=garden"
{{- else if .Values.extensionClasses }}
- {{ printf "--extension-classes=%s" (join "," .Values.extensionClasses) | quote }}
{{- end }}
- {{ printf "--ignore-operation-annotation=%v" .Values.ignoreOperationAnnotation | quote }}
- {{ printf "--dnsrecord-concurrency=%v" .Values.concurrency | quote }}
- "--leader-elect=true"
- {{ printf "--leader-election-namespace=%s" .Release.Namespace | quote }}
- {{ printf "--leader-election-id=%s" (include "hw.name" .) | quote }}
- {{ printf "--metrics-address=:%v" .Values.metricsPort | quote }}
- {{ printf "--log-level=%s" .Values.logLevel | quote }}
- "--log-format=json"
{{- if .Values.embedded.zones }}
{{- range .Values.embedded.zones }}
- {{ printf "--embedded-zone=%s" . | quote }}
{{- end }}
- "--embedded-data-dir=/var/lib/hostwarden"
- {{ printf "--dns-listen=:%v" .Values.embedded.dnsPort | quote }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}
