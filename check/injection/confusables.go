package injection

// confusables folds letters of other scripts that look like a Latin letter
// to that letter, in lower case: the one table of look-alikes the
// normalisation uses. A letter is looked up as it is, then in lower case,
// so a letter whose capital and small forms both look like the same Latin
// letter needs only its small form here (Cyrillic Н is folded through н),
// and a capital that looks like another letter than its small form gets
// its own entry (Greek Η looks like H, η like n).
//
// NFKD already folds fullwidth, mathematical, circled and superscript
// letters, ligatures and the long s; this table covers what it leaves:
// Cyrillic, Greek, Armenian and Cherokee look-alikes, Latin small capitals
// and IPA letters. The phrase table is folded with the same table, so a
// Russian phrase still matches Russian text.
var confusables = map[rune]rune{
	// Cyrillic.
	'а': 'a', 'в': 'b', 'ь': 'b', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'є': 'e', 'г': 'r',
	'һ': 'h', 'н': 'h', 'і': 'i', 'ӏ': 'l', 'Ӏ': 'i', 'ј': 'j', 'к': 'k', 'м': 'm',
	'п': 'n', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'т': 't', 'ѵ': 'v', 'ԝ': 'w',
	'х': 'x', 'у': 'y', 'ү': 'y',
	// Greek.
	'α': 'a', 'β': 'b', 'ϲ': 'c', 'ε': 'e', 'γ': 'y', 'η': 'n', 'ι': 'i', 'ϳ': 'j',
	'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w',
	'ζ': 'z', 'μ': 'u', 'Η': 'h', 'Ν': 'n', 'Υ': 'y', 'Μ': 'm', 'Β': 'b',
	// Armenian.
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'զ': 'q', 'ց': 'g',
	// Cherokee capitals.
	'Ꭺ': 'a', 'Ᏼ': 'b', 'Ꮯ': 'c', 'Ꭰ': 'd', 'Ꭼ': 'e', 'Ꮐ': 'g', 'Ꮋ': 'h', 'Ꭻ': 'j',
	'Ꮶ': 'k', 'Ꮮ': 'l', 'Ꮇ': 'm', 'Ꮲ': 'p', 'Ꮪ': 's', 'Ꭲ': 't', 'Ꮩ': 'v', 'Ꮃ': 'w',
	'Ꮢ': 'r', 'Ꮓ': 'z',
	// Latin small capitals, IPA and other Latin look-alikes.
	'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h',
	'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p',
	'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
	'ı': 'i', 'ȷ': 'j', 'ɡ': 'g', 'ɑ': 'a', 'ɩ': 'i', 'ɵ': 'o', 'ʐ': 'z',
	// Latin letters with a stroke or bar, which NFKD leaves whole.
	'ł': 'l', 'đ': 'd', 'ø': 'o', 'ħ': 'h', 'ŧ': 't', 'ƀ': 'b', 'ɨ': 'i', 'ʉ': 'u',
	'ƶ': 'z', 'ǥ': 'g', 'ɍ': 'r', 'ɏ': 'y', 'ȼ': 'c', 'ɇ': 'e', 'ɉ': 'j', 'ꝁ': 'k',
	'ƚ': 'l', 'ɫ': 'l', 'ɬ': 'l',
}
