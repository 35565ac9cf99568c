//go:build race

package list

const raceEnabled = true
