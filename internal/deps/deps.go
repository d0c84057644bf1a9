//go:build tools

// Package deps pins module dependencies before code uses them.
package deps

import (
	_ "github.com/Masterminds/sprig/v3"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hashicorp/go-multierror"
	_ "github.com/spf13/cobra"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/client-go/kubernetes"
	_ "sigs.k8s.io/yaml"
)
