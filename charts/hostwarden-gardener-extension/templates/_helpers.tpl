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

{{/* `hostwarden dnsrecord-controller` flags, one `--flag=value` item each. */}}
{{- define "hw.args" -}}
- "dnsrecord-controller"
{{- range .Values.dnsrecordTypes }}
- {{ printf "--dnsrecord-types=%s" . | quote }}
{{- end }}
{{- with .Values.dnsrecordClass }}
- {{ printf "--dnsrecord-class=%s" . | quote }}
{{- end }}
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
