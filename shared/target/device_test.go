package target

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDevice(t *testing.T) {
	tests := []struct {
		in   string
		want Device
		ok   bool
	}{
		{"iphone", DeviceIPhone, true},
		{"iPhone", DeviceIPhone, true},
		{" IPAD ", DeviceIPad, true},
		{"ipod", DeviceIPod, true},
		{"iPod Touch", DeviceIPod, true},
		{"android", DeviceAndroid, true},
		{"Windows", DeviceWindows, true},
		{"win", DeviceWindows, true},
		{"windows phone", DeviceWindowsPhone, true},
		{"Windows  Phone", DeviceWindowsPhone, true},
		{"windows-phone", DeviceWindowsPhone, true},
		{"windows_phone", DeviceWindowsPhone, true},
		{"windowsphone", DeviceWindowsPhone, true},
		{"macos", DeviceMacOS, true},
		{"macOS", DeviceMacOS, true},
		{"mac", DeviceMacOS, true},
		{"OSX", DeviceMacOS, true},
		{"mac os x", DeviceMacOS, true},
		{"linux", DeviceLinux, true},
		{"chromeos", DeviceChromeOS, true},
		{"Chrome OS", DeviceChromeOS, true},
		{"blackberry", DeviceBlackBerry, true},
		{"ios", DeviceUnknown, false},
		{"unknown", DeviceUnknown, false},
		{"", DeviceUnknown, false},
		{"symbian", DeviceUnknown, false},
	}
	for _, tt := range tests {
		got, ok := ParseDevice(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseDevice(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDeviceNamesRoundTrip(t *testing.T) {
	devs := Devices()
	if len(devs) != int(numDevices)-1 {
		t.Fatalf("Devices() has %d entries, want %d", len(devs), numDevices-1)
	}
	for _, d := range devs {
		got, ok := ParseDevice(d.String())
		if !ok || got != d {
			t.Errorf("ParseDevice(%q) = %v, %v", d.String(), got, ok)
		}
	}
	if s := Device(200).String(); s != "unknown" {
		t.Errorf("Device(200).String() = %q", s)
	}
	// The spec's list must all be there under its own names.
	for _, name := range []string{"iphone", "ipad", "android", "windows", "macos", "linux", "blackberry", "windows phone"} {
		if n, err := NormalizeDevice(name); err != nil || n != name {
			t.Errorf("NormalizeDevice(%q) = %q, %v", name, n, err)
		}
	}
}

func TestNormalizeDeviceErrors(t *testing.T) {
	_, err := NormalizeDevice("ios")
	if !errors.Is(err, ErrUnknownDevice) || !strings.Contains(err.Error(), "iphone, ipad or ipod") {
		t.Errorf(`NormalizeDevice("ios") error = %v`, err)
	}
	_, err = NormalizeDevice("toaster")
	if !errors.Is(err, ErrUnknownDevice) || !strings.Contains(err.Error(), `"toaster"`) ||
		!strings.Contains(err.Error(), "windows phone") {
		t.Errorf(`NormalizeDevice("toaster") error = %v`, err)
	}
}

func TestDeviceOfPrecedence(t *testing.T) {
	tests := []struct {
		ua   string
		want Device
	}{
		{"", DeviceUnknown},
		{"Windows Phone; Android; iPhone; Linux", DeviceWindowsPhone},
		{"BlackBerry; Android", DeviceBlackBerry},
		{"iPad; iPhone OS", DeviceIPad},
		{"iPod touch; CPU iPhone OS 12_0", DeviceIPod},
		{"X11; CrOS x86_64; Linux", DeviceChromeOS},
		{"Linux; Android 14", DeviceAndroid},
		{"Windows NT 10.0; Linux", DeviceWindows},
		{"Macintosh; Linux", DeviceMacOS},
		{"X11; Linux", DeviceLinux},
		{"Microsoft Office", DeviceUnknown}, // "cros" inside "micROSoft" is not ChromeOS
	}
	for _, tt := range tests {
		if got := DeviceOf([]byte(tt.ua)); got != tt.want {
			t.Errorf("DeviceOf(%q) = %s, want %s", tt.ua, got, tt.want)
		}
	}
}
