package target

import (
	"fmt"
	"strings"
)

// Device is the visitor's platform as far as a User-Agent tells it.
type Device uint8

// The devices a devicetarget rule can name. DeviceUnknown is the zero value:
// no rule can name it, so an unrecognised agent never matches a device rule.
// DeviceIPod and DeviceChromeOS go beyond the spec's list because both are
// distinct, common and would otherwise be misfiled (an iPod touch sends
// "iPhone OS", a Chromebook is neither linux nor android to its user).
const (
	DeviceUnknown Device = iota
	DeviceIPhone
	DeviceIPad
	DeviceIPod
	DeviceAndroid
	DeviceWindows
	DeviceWindowsPhone
	DeviceMacOS
	DeviceLinux
	DeviceChromeOS
	DeviceBlackBerry
	numDevices
)

// deviceNames are the canonical names, used as devicetarget keys and in the
// API's details.device object.
var deviceNames = [numDevices]string{
	DeviceUnknown:      "unknown",
	DeviceIPhone:       "iphone",
	DeviceIPad:         "ipad",
	DeviceIPod:         "ipod",
	DeviceAndroid:      "android",
	DeviceWindows:      "windows",
	DeviceWindowsPhone: "windows phone",
	DeviceMacOS:        "macos",
	DeviceLinux:        "linux",
	DeviceChromeOS:     "chromeos",
	DeviceBlackBerry:   "blackberry",
}

// deviceAliases are accepted spellings besides the canonical names, in the
// form deviceKey produces (lower case, one space between words).
var deviceAliases = map[string]Device{
	"ipod touch":     DeviceIPod,
	"win":            DeviceWindows,
	"windowsphone":   DeviceWindowsPhone,
	"winphone":       DeviceWindowsPhone,
	"windows mobile": DeviceWindowsPhone,
	"mac":            DeviceMacOS,
	"mac os":         DeviceMacOS,
	"macosx":         DeviceMacOS,
	"mac os x":       DeviceMacOS,
	"osx":            DeviceMacOS,
	"os x":           DeviceMacOS,
	"macintosh":      DeviceMacOS,
	"chrome os":      DeviceChromeOS,
	"chromebook":     DeviceChromeOS,
	"cros":           DeviceChromeOS,
	"bb":             DeviceBlackBerry,
	"black berry":    DeviceBlackBerry,
}

// String returns the canonical name ("windows phone"), "unknown" for
// DeviceUnknown and for out-of-range values.
func (d Device) String() string {
	if d >= numDevices {
		return deviceNames[DeviceUnknown]
	}
	return deviceNames[d]
}

// Devices returns every device a rule can name, in declaration order.
func Devices() []Device {
	out := make([]Device, 0, numDevices-1)
	for d := DeviceUnknown + 1; d < numDevices; d++ {
		out = append(out, d)
	}
	return out
}

// ParseDevice resolves a device name ignoring case, surrounding space and
// "-"/"_" separators: the canonical names plus aliases such as "mac",
// "osx", "win", "windowsphone", "chromebook", "ipod touch". "ios" is
// rejected on purpose: it would have to mean iPhone, iPad and iPod at once
// while the API echoes one device per rule.
func ParseDevice(name string) (Device, bool) {
	k := deviceKey(name)
	for d := DeviceUnknown + 1; d < numDevices; d++ {
		if deviceNames[d] == k {
			return d, true
		}
	}
	d, ok := deviceAliases[k]
	return d, ok
}

// NormalizeDevice returns the canonical name of a devicetarget key. The
// error wraps ErrUnknownDevice and lists the accepted names.
func NormalizeDevice(key string) (string, error) {
	d, ok := ParseDevice(key)
	if ok {
		return d.String(), nil
	}
	if deviceKey(key) == "ios" {
		return "", fmt.Errorf("%w %q: use iphone, ipad or ipod", ErrUnknownDevice, key)
	}
	return "", fmt.Errorf("%w %q: use one of %s", ErrUnknownDevice, key, strings.Join(deviceNames[1:], ", "))
}

func deviceKey(s string) string {
	s = strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// DeviceOf classifies a User-Agent without allocating. Precedence matters
// and is fixed by the order of the device tokens in uaTokens:
//
//   - Windows Phone / IEMobile first: those agents also claim "Android" and
//     "iPhone" for compatibility.
//   - BlackBerry (incl. BB10 and PlayBook) before the others.
//   - iPad, then iPod, then iPhone: an iPod touch says "CPU iPhone OS".
//   - ChromeOS ("; CrOS ") before android and linux.
//   - Android, whether or not "Mobile" is present: tablets such as the
//     SM-X710 omit it and are still android.
//   - Windows, then macOS ("Macintosh" / "Mac OS X"; iOS agents say
//     "like Mac OS X" but were caught above), then Linux.
//
// iPadOS 13+ Safari requests desktop sites with a macOS User-Agent that is
// byte-for-byte a Mac's; telling them apart needs client-side script
// (navigator.maxTouchPoints), which a redirect cannot run, so such iPads are
// DeviceMacOS.
func DeviceOf(ua []byte) Device {
	return uaIndex.inspect(ua).device()
}
