package analytics

import (
	"net/url"
	"strings"

	"github.com/foliohq/folio"
)

// Imported labels are named as the tracker names them (enrich.go, ParseAgent), so that a
// browser, a system or a device is one row of a breakdown whichever side counted it.
var (
	importBrowsers = map[string]string{"chrome": "Chrome", "crios": "Chrome", "chromium-webview": "Chrome",
		"firefox": "Firefox", "fxios": "Firefox", "safari": "Safari", "ios": "Safari", "ios-webview": "Safari",
		"mobile safari": "Safari", "edge": "Edge", "edge-chromium": "Edge", "edge-ios": "Edge", "microsoft edge": "Edge",
		"opera": "Opera", "samsung": "Samsung Browser", "samsung internet": "Samsung Browser", "vivaldi": "Vivaldi",
		"ie": "Internet Explorer", "facebook": "Facebook App", "instagram": "Instagram App"}
	importSystems = map[string]string{"mac": "macOS", "mac os": "macOS", "macos": "macOS", "os x": "macOS",
		"gnu/linux": "Linux", "linux": "Linux", "android os": "Android", "android": "Android", "ios": "iOS",
		"ipados": "iOS", "chrome os": "ChromeOS", "chromeos": "ChromeOS", "windows": "Windows", "freebsd": "FreeBSD"}
	importEvents = map[string]string{"outbound link: click": folio.MeasureOutbound, "file download": folio.MeasureDownload,
		"404": folio.MeasureNotFound}
)

func importBrowser(s string) string {
	s = cleanLabel(s)
	if name, ok := importBrowsers[strings.ToLower(s)]; ok {
		return name
	}
	if s == "" || s == "(not set)" {
		return "Unknown"
	}
	return s
}

// importOS names a system and its major version; Umami gives both in one ("Windows 10").
func importOS(s, version string) (string, string) {
	s = cleanLabel(s)
	if name, ok := importSystems[strings.ToLower(s)]; ok {
		return name, majorVersion(version)
	}
	if name, v, ok := strings.Cut(s, " "); ok && version == "" {
		if n, ok := importSystems[strings.ToLower(name)]; ok {
			return n, majorVersion(v)
		}
	}
	if s == "" || s == "(not set)" {
		return "Unknown", ""
	}
	return s, majorVersion(version)
}

// majorVersion keeps a version's first number ("128.0.1" → "128"), as the tracker does.
func majorVersion(v string) string {
	v = cleanLabel(v)
	if v == "(not set)" {
		return ""
	}
	v, _, _ = strings.Cut(v, ".")
	return v
}

func importDevice(s string) string {
	switch d := strings.ToLower(cleanLabel(s)); d {
	case DeviceDesktop, DeviceMobile, DeviceTablet:
		return d
	case "laptop":
		return DeviceDesktop
	default:
		return unknownDevice
	}
}

// importCountry keeps an ISO 3166-1 alpha-2 code, else UnknownCountry.
func importCountry(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
		return UnknownCountry
	}
	return s
}

// importEventName maps Plausible's names of its automatic measurements to folio's.
func importEventName(s string) string {
	s = cleanLabel(s)
	if name, ok := importEvents[strings.ToLower(s)]; ok {
		return name
	}
	return s
}

func joinVersion(name, version string) string {
	if version == "" {
		return name
	}
	return name + " " + version
}

// pagePath keeps the path of an imported page address, without query or fragment.
func pagePath(p string) string {
	if u, err := url.Parse(p); err == nil && u.Path != "" {
		p = u.Path
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// refHost is the host of an imported referrer ("https://www.google.com/…" or "google.com").
func refHost(ref string) string {
	if ref == "" {
		return ""
	}
	if !strings.Contains(ref, "://") {
		ref = "https://" + ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	return bareHost(u.Hostname())
}
