package mcp

// LoggingLevel is a syslog severity, RFC 5424.
type LoggingLevel string

// The levels, least severe first.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// Severity orders levels: debug is 0, emergency 7, and an unknown level -1.
func (l LoggingLevel) Severity() int {
	switch l {
	case LevelDebug:
		return 0
	case LevelInfo:
		return 1
	case LevelNotice:
		return 2
	case LevelWarning:
		return 3
	case LevelError:
		return 4
	case LevelCritical:
		return 5
	case LevelAlert:
		return 6
	case LevelEmergency:
		return 7
	}
	return -1
}

// SetLevelParams is the params of logging/setLevel.
type SetLevelParams struct {
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams is a log message sent to the client.
type LoggingMessageParams struct {
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	Data   any          `json:"data"`
}
