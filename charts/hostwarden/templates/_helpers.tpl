{{/* Chart name, overridable. */}}
{{- define "hostwarden.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name; the release name alone when it already is the chart name. */}}
{{- define "hostwarden.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if eq .Release.Name (include "hostwarden.name" .) -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "hostwarden.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "hostwarden.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hostwarden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hostwarden.labels" -}}
{{ include "hostwarden.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{- define "hostwarden.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "hostwarden.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "hostwarden.embedded" -}}
{{- if eq .Values.provider "embedded" -}}true{{- end -}}
{{- end -}}

{{/* The container args: every value becomes the external-dns flag of the same meaning. */}}
{{- define "hostwarden.args" -}}
{{- range .Values.sources }}
- {{ printf "--source=%s" . | quote }}
{{- end }}
{{- if and .Values.enableGatewayListenerSets (or (has "gateway-httproute" .Values.sources) (has "gateway-grpcroute" .Values.sources) (has "gateway-tlsroute" .Values.sources) (has "gateway-tcproute" .Values.sources) (has "gateway-udproute" .Values.sources)) }}
- "--gateway-listener-sets"
{{- end }}
{{- if has "unstructured" .Values.sources }}
{{- range .Values.unstructured.resources }}
- {{ printf "--unstructured-resource=%s.%s.%s" .resource .version (default "" .group) | quote }}
{{- end }}
{{- end }}
{{- range .Values.eventsEmit }}
- {{ printf "--events-emit=%s" . | quote }}
{{- end }}
- {{ printf "--provider=%s" .Values.provider | quote }}
- {{ printf "--registry=%s" .Values.registry | quote }}
- {{ printf "--txt-owner-id=%s" .Values.txtOwnerId | quote }}
{{- with .Values.txtPrefix }}
- {{ printf "--txt-prefix=%s" . | quote }}
{{- end }}
{{- with .Values.txtSuffix }}
- {{ printf "--txt-suffix=%s" . | quote }}
{{- end }}
- {{ printf "--policy=%s" .Values.policy | quote }}
{{- range .Values.domainFilters }}
- {{ printf "--domain-filter=%s" . | quote }}
{{- end }}
{{- range .Values.excludeDomains }}
- {{ printf "--exclude-domains=%s" . | quote }}
{{- end }}
{{- range .Values.managedRecordTypes }}
- {{ printf "--managed-record-types=%s" . | quote }}
{{- end }}
- {{ printf "--interval=%s" .Values.interval | quote }}
- {{ printf "--shutdown-drain=%s" .Values.shutdownDrain | quote }}
- {{ printf "--leader-elect=%v" .Values.leaderElection | quote }}
- {{ printf "--log-level=%s" .Values.logLevel | quote }}
- {{ printf "--log-format=%s" .Values.logFormat | quote }}
- {{ printf "--metrics-address=:%v" .Values.metrics.port | quote }}
{{- if include "hostwarden.embedded" . }}
- {{ printf "--embedded-data-dir=%s" .Values.embedded.dataDir | quote }}
{{- range .Values.embedded.zones }}
- {{ printf "--embedded-zone=%s" . | quote }}
{{- end }}
- "--dns-listen=:5353"
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}
