package target_test

import (
	"errors"
	"fmt"

	"kurz/shared/target"
)

// A link with every kind of rule. Compile runs once, when the link is
// cached; Match runs per visit and allocates nothing.
func ExampleCompile() {
	set, err := target.Compile(target.Spec{
		Geo:      []target.Rule{{Key: "germany", URL: "https://example.com/de"}},
		Device:   []target.Rule{{Key: "windows", URL: "https://example.com/win"}},
		Lang:     []target.Rule{{Key: "fr", URL: "https://example.com/fr"}},
		IOSStore: "https://apps.apple.com/app/id123",
	})
	if err != nil {
		panic(err)
	}
	visits := []target.Facts{
		{Country: [2]byte{'D', 'E'}, Device: target.DeviceIPhone},                                 // deep link first
		{Country: [2]byte{'D', 'E'}, Device: target.DeviceWindows},                                // then geo
		{Country: [2]byte{'U', 'S'}, Device: target.DeviceWindows},                                // then device
		{Country: [2]byte{'C', 'A'}, AcceptLanguage: []byte("fr-CA,fr;q=0.9,en;q=0.8")},           // then language
		{Country: [2]byte{'U', 'S'}, Device: target.DeviceMacOS, AcceptLanguage: []byte("en-US")}, // long URL
	}
	for _, f := range visits {
		url, ok := set.Match(&f)
		fmt.Println(url, ok)
	}
	// Output:
	// https://apps.apple.com/app/id123 true
	// https://example.com/de true
	// https://example.com/win true
	// https://example.com/fr true
	//  false
}

// Compile reports the first bad rule by its place in the API payload.
func ExampleCompile_error() {
	_, err := target.Compile(target.Spec{
		Geo: []target.Rule{
			{Key: "de", URL: "https://example.com/de"},
			{Key: "atlantis", URL: "https://example.com/atl"},
		},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, target.ErrUnknownCountry))
	// Output:
	// geotarget[1].location: unknown country "atlantis"
	// true
}

// The admin API stores canonical keys and echoes country names.
func ExampleNormalize() {
	spec, err := target.Normalize(target.Spec{
		Geo:    []target.Rule{{Key: "United States", URL: "https://example.com/us"}},
		Device: []target.Rule{{Key: "OSX", URL: "https://example.com/mac"}},
		Lang:   []target.Rule{{Key: "pt_br", URL: "https://example.com/pt"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.Geo[0].Key, target.CountryName(spec.Geo[0].Key))
	fmt.Println(spec.Device[0].Key)
	fmt.Println(spec.Lang[0].Key)
	// Output:
	// US united states
	// macos
	// pt-BR
}

func ExampleInspect() {
	tablet := []byte("Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.6045.163 Safari/537.36")
	fmt.Printf("%+v\n", target.Inspect(tablet, []byte("GET"), nil))
	slack := []byte("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
	fmt.Printf("%+v\n", target.Inspect(slack, []byte("HEAD"), nil))
	// Output:
	// {Device:android Class:human SocialPreview:false}
	// {Device:unknown Class:preview SocialPreview:true}
}
