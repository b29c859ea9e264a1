package folio

// AnalyticsSettings are how much analytics keeps, and what it mails the owner.
type AnalyticsSettings struct {
	RetentionDays int                     `json:"retentionDays" doc:"days of raw page views and events kept; 0 keeps everything"`
	Storage       string                  `json:"storage" doc:"local (page views are stored) or none (collection answers but stores nothing)"`
	Reports       AnalyticsReportSettings `json:"reports"`
	Alert         AnalyticsAlertSettings  `json:"alert"`
}

// AnalyticsReportSettings choose the mailed reports (docs/api.md, "Reports by mail").
type AnalyticsReportSettings struct {
	Weekly  bool `json:"weekly" doc:"mail the owner last week's figures against the week before, on Monday"`
	Monthly bool `json:"monthly" doc:"mail the owner last month's figures against the month before, on the 1st"`
}

// AnalyticsAlertSettings set the traffic-spike alert: either threshold (0: off) sends it.
type AnalyticsAlertSettings struct {
	VisitorsPerHour int     `json:"visitorsPerHour" doc:"alert when this hour's visitors reach this number; 0: off"`
	Multiple        float64 `json:"multiple" doc:"alert when this hour's visitors reach this multiple of the same hour's average over the previous 7 days (and at least 10); 0: off"`
}

// AnalyticsUpdate changes AnalyticsSettings.
type AnalyticsUpdate struct {
	RetentionDays *int                   `json:"retentionDays,omitempty"`
	Storage       *string                `json:"storage,omitempty"`
	Reports       *AnalyticsReportUpdate `json:"reports,omitempty"`
	Alert         *AnalyticsAlertUpdate  `json:"alert,omitempty"`
}

// AnalyticsReportUpdate changes AnalyticsReportSettings.
type AnalyticsReportUpdate struct {
	Weekly  *bool `json:"weekly,omitempty"`
	Monthly *bool `json:"monthly,omitempty"`
}

// AnalyticsAlertUpdate changes AnalyticsAlertSettings.
type AnalyticsAlertUpdate struct {
	VisitorsPerHour *int     `json:"visitorsPerHour,omitempty"`
	Multiple        *float64 `json:"multiple,omitempty"`
}

// Limits of the spike alert's thresholds.
const (
	MaxAlertVisitorsPerHour = 10_000_000
	MinAlertMultiple        = 1.5
	MaxAlertMultiple        = 1000.0
)

func init() {
	settingRules["analytics.reports.weekly"] = settingBool
	settingRules["analytics.reports.monthly"] = settingBool
	settingRules["analytics.alert.visitorsPerHour"] = settingInt(0, MaxAlertVisitorsPerHour)
	settingRules["analytics.alert.multiple"] = settingMultiple
}

func settingBool(*Validation, string, *bool) {}

func settingMultiple(v *Validation, path string, f *float64) {
	if *f != 0 && (*f < MinAlertMultiple || *f > MaxAlertMultiple) {
		v.Invalid(path, "must be 0 (off) or from %g to %g", MinAlertMultiple, MaxAlertMultiple)
	}
}
