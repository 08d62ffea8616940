// Package themes turns semantic palettes (dark, light, high-contrast, none)
// into one Styles struct the UI uses. It must not import zkview or lockops.
//
// Styles are built once, when the program starts and again when the
// terminal reports its background colour; View code only reads them.
package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Names of the built-in themes, as accepted by --theme and the config file.
const (
	Auto         = "auto"
	Dark         = "dark"
	Light        = "light"
	HighContrast = "high-contrast"
	None         = "none" // no colours at all (NO_COLOR)
)

// Names lists the themes a user can pick.
func Names() []string { return []string{Auto, Dark, Light, HighContrast, None} }

// Palette is a theme's semantic colours. A nil colour means "the terminal's
// default".
type Palette struct {
	Name string

	Fg, Muted, Subtle color.Color // text, secondary text, faint text
	Accent            color.Color // titles, keys in help, the focused border
	Border            color.Color // unfocused pane borders
	SelBg, SelFg      color.Color // the cursor row in the focused pane
	SelBlurBg         color.Color // the cursor row in an unfocused pane
	HeaderBg          color.Color

	OK, Warn, Err, Info color.Color

	// Node markers.
	Persistent, Ephemeral, Sequential, Container, TTL, Lock color.Color

	// Lock queues.
	Holder, Waiter, Fresh, Released color.Color
}

// Pick resolves a theme name ("" or "auto" picks dark or light from the
// terminal background). noColor (see [NoColorEnv]) overrides every theme:
// the "none" palette draws with attributes only (bold, faint, reverse).
func Pick(name string, darkBackground, noColor bool) (Palette, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if noColor {
		return nonePalette(), nil
	}
	switch name {
	case "", Auto:
		if darkBackground {
			return darkPalette(), nil
		}
		return lightPalette(), nil
	case Dark:
		return darkPalette(), nil
	case Light:
		return lightPalette(), nil
	case HighContrast, "high_contrast", "highcontrast":
		return highContrastPalette(), nil
	case None, "no-color", "nocolor":
		return nonePalette(), nil
	}
	return Palette{}, fmt.Errorf("unknown theme %q: use one of %s", name, strings.Join(Names(), ", "))
}

// NoColorEnv reports whether the environment asks for no colour: NO_COLOR
// present and not empty (https://no-color.org).
func NoColorEnv(getenv func(string) string) bool { return getenv("NO_COLOR") != "" }

// Valid reports whether name is a theme Pick accepts.
func Valid(name string) error {
	_, err := Pick(name, true, false)
	return err
}

func darkPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Name:  Dark,
		Fg:    c("#d7dae0"),
		Muted: c("#8b93a5"), Subtle: c("#6b7280"),
		Accent: c("#61afef"), Border: c("#3e4451"),
		SelBg: c("#2f4f7a"), SelFg: c("#ffffff"), SelBlurBg: c("#323844"),
		HeaderBg: c("#21252b"),
		OK:       c("#98c379"), Warn: c("#e5c07b"), Err: c("#ef7a83"), Info: c("#56b6c2"),
		Persistent: c("#abb2bf"), Ephemeral: c("#c678dd"), Sequential: c("#56b6c2"),
		Container: c("#d19a66"), TTL: c("#e5c07b"), Lock: c("#ef7a83"),
		Holder: c("#98c379"), Waiter: c("#e5c07b"), Fresh: c("#61afef"), Released: c("#5c6370"),
	}
}

func lightPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Name:  Light,
		Fg:    c("#24292f"),
		Muted: c("#57606a"), Subtle: c("#8c959f"),
		Accent: c("#0550ae"), Border: c("#d0d7de"),
		SelBg: c("#b6d4fe"), SelFg: c("#0b1f3a"), SelBlurBg: c("#e4e8ec"),
		HeaderBg: c("#eaeef2"),
		OK:       c("#1a7f37"), Warn: c("#9a6700"), Err: c("#cf222e"), Info: c("#0969da"),
		Persistent: c("#24292f"), Ephemeral: c("#8250df"), Sequential: c("#0a7f8f"),
		Container: c("#bc4c00"), TTL: c("#9a6700"), Lock: c("#cf222e"),
		Holder: c("#1a7f37"), Waiter: c("#9a6700"), Fresh: c("#0969da"), Released: c("#8c959f"),
	}
}

func highContrastPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Name:  HighContrast,
		Fg:    c("#ffffff"),
		Muted: c("#ffffff"), Subtle: c("#c0c0c0"),
		Accent: c("#ffff00"), Border: c("#ffffff"),
		SelBg: c("#ffff00"), SelFg: c("#000000"), SelBlurBg: c("#5a5a5a"),
		HeaderBg: c("#000000"),
		OK:       c("#00ff00"), Warn: c("#ffff00"), Err: c("#ff5555"), Info: c("#00ffff"),
		Persistent: c("#ffffff"), Ephemeral: c("#ff80ff"), Sequential: c("#00ffff"),
		Container: c("#ffb000"), TTL: c("#ffff00"), Lock: c("#ff5555"),
		Holder: c("#00ff00"), Waiter: c("#ffff00"), Fresh: c("#00ffff"), Released: c("#c0c0c0"),
	}
}

// nonePalette has no colours: emphasis comes from bold, faint and reverse.
func nonePalette() Palette { return Palette{Name: None} }

// Styles is every style the UI draws with, built once from a palette.
type Styles struct {
	Palette Palette
	NoColor bool

	Base, Muted, Subtle, Bold lipgloss.Style

	// Header bar.
	Header, HeaderTitle, HeaderKey, HeaderValue lipgloss.Style
	StateOK, StateWarn, StateErr                lipgloss.Style

	// Panes. Pane and PaneFocused carry the border; PaneTitle is drawn
	// into the top line.
	Pane, PaneFocused, PaneTitle, PaneTitleFocused lipgloss.Style
	// PaneEdge and PaneEdgeFocused colour border characters drawn by hand
	// (the UI draws titled borders itself).
	PaneEdge, PaneEdgeFocused lipgloss.Style

	// Tree rows.
	Row, RowSelected, RowSelectedBlur lipgloss.Style
	Breadcrumb, BreadcrumbSep         lipgloss.Style
	Count, Gone, FilterMatch          lipgloss.Style

	// Node type markers.
	Persistent, Ephemeral, Sequential, Container, TTL, Lock lipgloss.Style

	// Detail pane.
	Section, Key, Value, Data, Tab, TabActive lipgloss.Style

	// Lock queues (the lock pane).
	Holder, Waiter, Fresh, Released, Chain       lipgloss.Style
	ObservedOK, ObservedMissing, ObservedUnknown lipgloss.Style
	Badge, BadgeWarn, BadgeErr                   lipgloss.Style

	// Footer, help, status.
	Footer, HelpKey, HelpDesc, HelpSep lipgloss.Style
	HelpColumn                         lipgloss.Style // one column of the full help
	Info, Success, Warning, Error      lipgloss.Style

	// Dialogs and the command line.
	Dialog, DialogTitle, Prompt, Input lipgloss.Style
}

// New builds the styles of palette p.
func New(p Palette) Styles {
	none := p.Name == None
	s := Styles{Palette: p, NoColor: none}
	s.Base = fg(p.Fg)
	s.Muted = fg(p.Muted)
	s.Subtle = fg(p.Subtle)
	s.Bold = fg(p.Fg).Bold(true)
	if none {
		s.Subtle = s.Subtle.Faint(true)
	}
	s.setHeader(p, none)
	s.setPanes(p, none)
	s.setRows(p, none)
	s.setDetail(p)
	s.setLocks(p, none)
	s.setFooter(p)
	return s
}

// fg is a style in colour c (nil: the terminal's).
func fg(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle()
	if c != nil {
		s = s.Foreground(c)
	}
	return s
}

// bg is s on background c (nil: the terminal's).
func bg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c != nil {
		s = s.Background(c)
	}
	return s
}

// border is a rounded border in colour c (nil: the terminal's).
func border(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	if c != nil {
		s = s.BorderForeground(c)
	}
	return s
}

// setHeader builds the header bar's styles.
func (s *Styles) setHeader(p Palette, none bool) {
	s.Header = bg(fg(p.Fg), p.HeaderBg)
	s.HeaderTitle = bg(fg(p.Accent).Bold(true), p.HeaderBg)
	s.HeaderKey = bg(fg(p.Muted), p.HeaderBg)
	s.HeaderValue = bg(fg(p.Fg).Bold(true), p.HeaderBg)
	s.StateOK = bg(fg(p.OK).Bold(true), p.HeaderBg)
	s.StateWarn = bg(fg(p.Warn).Bold(true), p.HeaderBg)
	s.StateErr = bg(fg(p.Err).Bold(true), p.HeaderBg)
	if none {
		s.StateWarn = s.StateWarn.Underline(true)
		s.StateErr = s.StateErr.Reverse(true)
	}
}

// setPanes builds the panes' borders and titles.
func (s *Styles) setPanes(p Palette, none bool) {
	s.Pane = border(p.Border)
	s.PaneFocused = border(p.Accent)
	if none {
		s.PaneFocused = lipgloss.NewStyle().Border(lipgloss.ThickBorder())
	}
	s.PaneEdge = fg(p.Border)
	s.PaneEdgeFocused = fg(p.Accent)
	s.PaneTitle = fg(p.Muted).Bold(true)
	s.PaneTitleFocused = fg(p.Accent).Bold(true)
}

// setRows builds the tree rows' styles and the node markers'.
func (s *Styles) setRows(p Palette, none bool) {
	s.Row = fg(p.Fg)
	s.RowSelected = bg(fg(p.SelFg), p.SelBg).Bold(true)
	s.RowSelectedBlur = bg(fg(p.Fg), p.SelBlurBg)
	if none {
		s.RowSelected = lipgloss.NewStyle().Reverse(true).Bold(true)
		s.RowSelectedBlur = lipgloss.NewStyle().Reverse(true)
	}
	s.Breadcrumb = fg(p.Fg).Bold(true)
	s.BreadcrumbSep = fg(p.Subtle)
	s.Count = fg(p.Muted)
	s.Gone = fg(p.Subtle).Strikethrough(true)
	s.FilterMatch = fg(p.Accent).Underline(true)

	s.Persistent = fg(p.Persistent)
	s.Ephemeral = fg(p.Ephemeral).Bold(true)
	s.Sequential = fg(p.Sequential)
	s.Container = fg(p.Container)
	s.TTL = fg(p.TTL)
	s.Lock = fg(p.Lock).Bold(true)
}

// setDetail builds the detail pane's styles.
func (s *Styles) setDetail(p Palette) {
	s.Section = fg(p.Accent).Bold(true)
	s.Key = fg(p.Muted)
	s.Value = fg(p.Fg)
	s.Data = fg(p.Fg)
	s.Tab = fg(p.Muted)
	s.TabActive = fg(p.Accent).Bold(true).Underline(true)
}

// setLocks builds the lock pane's styles: queues, watches, badges.
func (s *Styles) setLocks(p Palette, none bool) {
	s.Holder = fg(p.Holder).Bold(true)
	s.Waiter = fg(p.Waiter)
	s.Fresh = bg(fg(p.SelFg), p.Fresh).Bold(true)
	s.Released = fg(p.Released).Strikethrough(true)
	s.Chain = fg(p.Muted)
	s.ObservedOK = fg(p.OK).Bold(true)
	s.ObservedMissing = fg(p.Err).Bold(true)
	s.ObservedUnknown = fg(p.Muted)
	s.Badge = bg(fg(p.SelFg), p.Info).Padding(0, 1)
	s.BadgeWarn = bg(fg(p.SelFg), p.Warn).Padding(0, 1)
	s.BadgeErr = bg(fg(p.SelFg), p.Err).Padding(0, 1)
	if none {
		s.Fresh = lipgloss.NewStyle().Reverse(true)
		s.Badge = lipgloss.NewStyle().Reverse(true).Padding(0, 1)
		s.BadgeWarn = s.Badge
		s.BadgeErr = s.Badge.Bold(true)
	}
}

// setFooter builds the footer's, help's, status line's, dialogs' and
// command line's styles.
func (s *Styles) setFooter(p Palette) {
	s.Footer = fg(p.Muted)
	s.HelpKey = fg(p.Accent).Bold(true)
	s.HelpDesc = fg(p.Muted)
	s.HelpSep = fg(p.Subtle)
	s.HelpColumn = lipgloss.NewStyle().PaddingRight(4)
	s.Info = fg(p.Info)
	s.Success = fg(p.OK)
	s.Warning = fg(p.Warn).Bold(true)
	s.Error = fg(p.Err).Bold(true)

	s.Dialog = border(p.Accent).Padding(0, 1)
	s.DialogTitle = fg(p.Accent).Bold(true)
	s.Prompt = fg(p.Accent).Bold(true)
	s.Input = fg(p.Fg)
}
