package cmdutil

// Output formats shared by the read commands: -o json|yaml.

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/zkscope/zkscope/printable"
)

// OutputFormats are the values of -o / --output.
func OutputFormats() []string { return []string{"json", "yaml"} }

// OutputFlag registers -o / --output and its completion.
func OutputFlag(cmd *cobra.Command, output *string) {
	cmd.Flags().StringVarP(output, "output", "o", "", "print as json or yaml (default: text)")
	cmd.RegisterFlagCompletionFunc("output", Fixed(OutputFormats()...))
}

// CheckOutput refuses an unknown -o value before connecting.
func CheckOutput(output string) error {
	switch output {
	case "", "json", "yaml":
		return nil
	}
	return Usagef("--output %q: want json or yaml", output)
}

// WriteDoc prints v as JSON (indented) or YAML.
func WriteDoc(w io.Writer, format string, v any) error {
	if format == "yaml" {
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(v); err != nil {
			return err
		}
		return enc.Close()
	}
	enc := json.NewEncoder(printable.JSON(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
