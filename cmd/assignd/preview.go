package main

import (
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// parseCandidate parses a candidate policy for PreviewPolicy exactly as
// the live file is parsed; the parsed policy only explains (it runs no
// shadows and exports no metrics).
func parseCandidate(file string, data []byte) (selection.Explainer, error) {
	if len(data) > policy.MaxFileSize {
		return nil, &policy.Error{File: file, Msg: "larger than the policy file limit"}
	}
	p, err := policy.Parse(file, data)
	if err != nil {
		return nil, err
	}
	return p, nil
}
