package params

import (
	"encoding/json"
	"testing"
)

var benchArgs = json.RawMessage(`{"city":"Paris","days":5,"units":"metric","hourly":true,"tags":["rain","wind"]}`)

func BenchmarkValidate(b *testing.B) {
	s := mustNew(b,
		String("city", Required(), Validate("min=1,max=64")),
		Integer("days", Default(3), Validate("min=1,max=14")),
		Enum("units", []string{"metric", "imperial"}),
		Boolean("hourly"),
		Array("tags", String("", Validate("max=16")), Validate("max=5")),
	)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Validate(benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

type benchForecast struct {
	City   string   `json:"city" validate:"required,min=1,max=64"`
	Days   int      `json:"days" validate:"min=1,max=14" default:"3"`
	Units  string   `json:"units" validate:"omitempty,oneof=metric imperial"`
	Hourly bool     `json:"hourly"`
	Tags   []string `json:"tags" validate:"max=5,dive,max=16"`
}

func BenchmarkBind(b *testing.B) {
	s := mustFor[benchForecast](b)
	b.ReportAllocs()
	for b.Loop() {
		var f benchForecast
		if err := s.Bind(benchArgs, &f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBindDeep measures the slower path taken when a default sits
// behind a slice, pointer or map.
func BenchmarkBindDeep(b *testing.B) {
	type tag struct {
		Name   string `json:"name"`
		Weight int    `json:"weight" default:"1"`
	}
	type params struct {
		City string `json:"city" validate:"required"`
		Tags []tag  `json:"tags" validate:"dive"`
	}
	s := mustFor[params](b)
	args := json.RawMessage(`{"city":"Paris","tags":[{"name":"rain"},{"name":"wind","weight":2}]}`)
	b.ReportAllocs()
	for b.Loop() {
		var p params
		if err := s.Bind(args, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateRaw(b *testing.B) {
	s := mustRaw(b, `{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":64},"days":{"type":"integer","minimum":1,"maximum":14},"units":{"enum":["metric","imperial"]},"hourly":{"type":"boolean"},"tags":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":16}}},"required":["city"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Validate(benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateErrors(b *testing.B) {
	s := mustNew(b,
		String("city", Required(), Validate("min=1,max=64")),
		Integer("days", Validate("min=1,max=14")),
	)
	args := json.RawMessage(`{"days":"5"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Validate(args); err == nil {
			b.Fatal("no error")
		}
	}
}
