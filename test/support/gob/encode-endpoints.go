// Writes external-dns endpoints as the connector source receives them: a JSON array of endpoints
// on stdin, Go's encoding/gob of the []*Endpoint on stdout (what external-dns's connector test
// server sends). The types restate sigs.k8s.io/external-dns/endpoint's Endpoint (its exported
// fields, their Go types and names), so the bytes are those of upstream's types; only the standard
// library is used, so `go run` needs no module download.
//
//	go run test/support/gob/encode-endpoints.go < endpoints.json > endpoints.gob
package main

import (
	"encoding/gob"
	"encoding/json"
	"os"
)

// TTL is external-dns's endpoint.TTL.
type TTL int64

// Targets is external-dns's endpoint.Targets.
type Targets []string

// Labels is external-dns's endpoint.Labels.
type Labels map[string]string

// ProviderSpecificProperty is external-dns's endpoint.ProviderSpecificProperty.
type ProviderSpecificProperty struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// ProviderSpecific is external-dns's endpoint.ProviderSpecific.
type ProviderSpecific []ProviderSpecificProperty

// Endpoint is external-dns's endpoint.Endpoint (refObjects is unexported, so gob never sends it).
type Endpoint struct {
	DNSName          string           `json:"dnsName,omitempty"`
	Targets          Targets          `json:"targets,omitempty"`
	RecordType       string           `json:"recordType,omitempty"`
	SetIdentifier    string           `json:"setIdentifier,omitempty"`
	RecordTTL        TTL              `json:"recordTTL,omitempty"`
	Labels           Labels           `json:"labels,omitempty"`
	ProviderSpecific ProviderSpecific `json:"providerSpecific,omitempty"`
}

func main() {
	var endpoints []*Endpoint
	if err := json.NewDecoder(os.Stdin).Decode(&endpoints); err != nil {
		os.Stderr.WriteString("encode-endpoints: " + err.Error() + "\n")
		os.Exit(1)
	}
	if err := gob.NewEncoder(os.Stdout).Encode(endpoints); err != nil {
		os.Stderr.WriteString("encode-endpoints: " + err.Error() + "\n")
		os.Exit(1)
	}
}
