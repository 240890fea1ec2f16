package chstore_test

import (
	"testing"

	"kurz/shared/chstore"
)

func TestParsePartName(t *testing.T) {
	tests := []struct {
		name string
		want chstore.PartRange
		ok   bool
	}{
		{"all_1_1_0", chstore.PartRange{Partition: "all", Min: 1, Max: 1}, true},
		{"all_15_1780_1537", chstore.PartRange{Partition: "all", Min: 15, Max: 1780}, true},
		{"202611_3_9_2_12", chstore.PartRange{Partition: "202611", Min: 3, Max: 9, Mutated: true}, true},
		{"all_9_3_1", chstore.PartRange{}, false}, // max below min
		{"all_1_1", chstore.PartRange{}, false},
		{"_1_1_0", chstore.PartRange{}, false},
		{"all_a_1_0", chstore.PartRange{}, false},
		{"all_1_1_x", chstore.PartRange{}, false},
		{"all_1_1_0_1_2", chstore.PartRange{}, false},
	}
	for _, tt := range tests {
		got, ok := chstore.ParsePartName(tt.name)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("ParsePartName(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	merged, _ := chstore.ParsePartName("all_1_9_2")
	for name, want := range map[string]bool{"all_1_1_0": true, "all_3_9_1": true, "all_9_10_1": false, "x_2_2_0": false} {
		p, _ := chstore.ParsePartName(name)
		if merged.Covers(p) != want {
			t.Errorf("all_1_9_2 covers %s: %v, want %v", name, !want, want)
		}
	}
}
