//go:build !bubbletea

// The sign-up's prompts with golang.org/x/term: Email, Password (masked), Confirm password
// (masked).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

func ask() (string, []byte) {
	fmt.Fprint(os.Stderr, "Email: ")
	email, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		fail()
	}
	fmt.Fprint(os.Stderr, "Password: ")
	password, err := term.ReadPassword(int(os.Stdin.Fd()))
	if err != nil {
		fail()
	}
	fmt.Fprint(os.Stderr, "\nConfirm password: ")
	confirmation, err := term.ReadPassword(int(os.Stdin.Fd()))
	fmt.Fprintln(os.Stderr)
	if err != nil || string(confirmation) != string(password) {
		fmt.Fprintln(os.Stderr, "Passwords do not match")
		fail()
	}
	return strings.TrimSpace(email), password
}
