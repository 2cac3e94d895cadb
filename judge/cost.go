package judge

import (
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
)

// DefaultPrices are list prices of common judge models in US dollars per
// million tokens (input, output), as published by their providers in
// 2025; a policy's judge.prices adds to and overrides them. A model is
// priced by its name, or by the longest name in the table that its name
// starts with ("gpt-4o-2024-08-06" is priced as "gpt-4o"); a provider
// prefix ("openai/gpt-4o" on OpenRouter) is ignored.
var DefaultPrices = map[string]vouch.Price{
	"gpt-4o":            {InputPerMTok: 2.5, OutputPerMTok: 10},
	"gpt-4o-mini":       {InputPerMTok: 0.15, OutputPerMTok: 0.6},
	"gpt-4.1":           {InputPerMTok: 2, OutputPerMTok: 8},
	"gpt-4.1-mini":      {InputPerMTok: 0.4, OutputPerMTok: 1.6},
	"gpt-4.1-nano":      {InputPerMTok: 0.1, OutputPerMTok: 0.4},
	"o3":                {InputPerMTok: 2, OutputPerMTok: 8},
	"o4-mini":           {InputPerMTok: 1.1, OutputPerMTok: 4.4},
	"claude-opus-4":     {InputPerMTok: 15, OutputPerMTok: 75},
	"claude-sonnet-4":   {InputPerMTok: 3, OutputPerMTok: 15},
	"claude-sonnet-4-5": {InputPerMTok: 3, OutputPerMTok: 15},
	"claude-haiku-4-5":  {InputPerMTok: 1, OutputPerMTok: 5},
	"claude-3-5-haiku":  {InputPerMTok: 0.8, OutputPerMTok: 4},
}

// priceOf returns a model's price: its name in the policy's table, then
// in the default one; else the longest name either table holds that its
// name starts with, the policy's first.
func priceOf(model string, pol *vouch.JudgePolicy) (vouch.Price, bool) {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	tables := []map[string]vouch.Price{pol.Prices, DefaultPrices}
	for _, table := range tables {
		if p, ok := table[model]; ok {
			return p, true
		}
	}
	var best string
	var price vouch.Price
	for _, table := range tables {
		for name, p := range table {
			if strings.HasPrefix(model, name) && len(name) > len(best) {
				best, price = name, p
			}
		}
	}
	return price, best != ""
}

// usd is what a call's tokens cost at a price.
func usd(p vouch.Price, in, out int) float64 {
	return float64(in)*p.InputPerMTok/1e6 + float64(out)*p.OutputPerMTok/1e6
}

// estimateTokens is a rough count of the tokens of a text: a token is
// about four bytes of English.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func itoa(n int) string { return strconv.Itoa(n) }

func roundUSD(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }
