// Package themes turns semantic palettes (dark, light, high-contrast, none)
// into one Styles struct the UI uses. It must not import zkview or lockops.
package themes
