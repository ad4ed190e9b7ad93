//go:build bubbletea

// The sign-up's prompts with charmbracelet/bubbletea: one model, three fields (the two
// password fields shown as bullets), Enter moves to the next field, Ctrl-C cancels.
package main

import (
	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

var labels = []string{"Email", "Password", "Confirm password"}

type form struct {
	values    [3][]rune
	field     int
	cancelled bool
}

func (f *form) Init() tea.Cmd { return nil }

func (f *form) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	key, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	switch key.Type {
	case tea.KeyCtrlC, tea.KeyEsc:
		f.cancelled = true
		return f, tea.Quit
	case tea.KeyEnter:
		return f, f.next()
	case tea.KeyBackspace:
		if n := len(f.values[f.field]); n > 0 {
			f.values[f.field] = f.values[f.field][:n-1]
		}
	case tea.KeyRunes, tea.KeySpace:
		// bubbletea 0.19 hands a whole read as one message: typed-ahead text with its
		// Enter ("name@example.com\r") arrives as runes, so a line end here is an Enter.
		for _, r := range key.Runes {
			if r != '\r' && r != '\n' {
				f.values[f.field] = append(f.values[f.field], r)
			} else if cmd := f.next(); cmd != nil {
				return f, cmd
			}
		}
	}
	return f, nil
}

// next moves to the next field, or ends the form after the last one.
func (f *form) next() tea.Cmd {
	if f.field == len(labels)-1 {
		return tea.Quit
	}
	f.field++
	return nil
}

func (f *form) View() string {
	var view strings.Builder
	for i := 0; i <= f.field; i++ {
		shown := string(f.values[i])
		if i > 0 {
			shown = strings.Repeat("•", len(f.values[i]))
		}
		fmt.Fprintf(&view, "%s: %s\n", labels[i], shown)
	}
	return view.String()
}

func ask() (string, []byte) {
	f := &form{}
	if err := tea.NewProgram(f).Start(); err != nil || f.cancelled {
		fail()
	}
	if string(f.values[1]) != string(f.values[2]) {
		fmt.Fprintln(os.Stderr, "Passwords do not match")
		fail()
	}
	return strings.TrimSpace(string(f.values[0])), []byte(string(f.values[1]))
}
