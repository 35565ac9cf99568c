package search

import "testing"

func TestGeoHashParse(t *testing.T) {
	for v, ok := range map[string]bool{
		"-122.41,37.77": true, "-122.41 37.77": true, ",5": true, "5,": true, "1, 2": true,
		"0x1p1,2": true, "bad": false, "": false, "1,2,3": false, " 1 , 2": false, "1 ,2": false,
		"200,10": false, "10,86": false, "nan,2": false,
	} {
		if _, got := geoHash([]byte(v)); got != ok {
			t.Errorf("geoHash(%q) = %v, want %v", v, got, ok)
		}
	}
}

func TestLexNumber(t *testing.T) {
	for in, want := range map[string]string{".5": "5", "-.5e1": "-5e1", "+..5": "+5", "1.5": "1.5", ".": ".", "-inf": "-inf", "-.x": "-.x"} {
		if got := lexNumber(in); got != want {
			t.Errorf("lexNumber(%q) = %q, want %q", in, got, want)
		}
	}
}
