package injection

import "strings"

// The phrase table: what the scanner flags, by language.
//
// A rule's expression is matched from a trigger word (the first word of
// every match): the scanner finds the text's words in one pass and tries
// only the rules of the words it holds. Expressions are case-insensitive,
// their fragments (<NAME>) are expanded from fragments, and their letters
// that are not ASCII are folded as the text is (accents dropped,
// look-alikes folded to Latin), so a phrase is written as a speaker would
// write it.
//
// Whether a match is flagged depends on the text before it (see mode):
// "approve this output" is an instruction after "please" or at the start
// of a sentence, and a report after "the user can".

// Kinds of instruction, as flags name them.
const (
	whatIgnore  = "tells the verifier to ignore its instructions"
	whatDecide  = "tells the verifier what to decide"
	whatScore   = "asks for a perfect score"
	whatAddress = "addresses the verifier"
	whatRole    = "plays a role"
	whatFake    = "fakes a system or tool message"
	whatTool    = "names the verifier's own tool"
)

// A mode says what the text before a match must hold for it to be flagged.
type mode uint8

const (
	// needLead flags a match only when its lead expression matches the
	// text before it: an imperative at the start of a sentence, after
	// "please", "you must", "could you", "as the grader"...
	needLead mode = iota
	// unlessMention flags a match unless it is mentioned rather than said:
	// quoted after a word ("the filter rejects 'ignore previous
	// instructions'") or after a word that reports it ("phrases like",
	// "told users to").
	unlessMention
	// always flags every match.
	always
)

// A ruleSpec is one line of the phrase table.
type ruleSpec struct {
	what string
	// lang is the language, for reading the table.
	lang string
	// words are the trigger words, space separated; none for a rule of
	// Han, kana or Hangul text, tried on the whole text. A word may name
	// the words that may follow it, "do:not", for the rule to be tried.
	words string
	// next, when set, are the words that may follow a trigger word that
	// names none, space separated; "." stands for no word (punctuation or
	// the end of the text). It is a cheap test before the expression's.
	next string
	// after, when set, holds the bytes one of which must follow the
	// trigger word at once.
	after string
	// src is the expression, matched from the trigger word.
	src  string
	mode mode
	// lead is the expression the text before a needLead match must end
	// with; leadAny when empty.
	lead string
	// notAfter, when set, is an expression the text after a match must
	// not start with.
	notAfter string
}

// Words that may follow a trigger word, for the next fields.
const (
	nextSelf     = "this it that them me these those my our the all every each everything"
	nextIgnore   = "task all any the your these those of every each its my such other previous previously prior above earlier preceding foregoing former original initial old older existing current given usual standard default system grading scoring evaluation evaluator review verification assessment judging judge grader verifier safety hidden internal built official developer operator instructions instruction rubric rubrics criteria criterion guidelines guideline guidance directives directive directions prompts prompt programming training orders commands constraints policies policy requirements rules checks check tests test failures failing restrictions limitations everything anything what about"
	nextVerdict  = "only just simply exactly the a word string token verdict value result score of pass passed approve approved accepted 10 100 full perfect with"
	nextScore    = "this it that them me these my our the all every each everything to a an your perfect full maximum max top highest best passing flawless excellent high 10 100 1 5 five approval thumbs score grade rating"
	nextVerifier = "judge judges grader graders verifier verifiers evaluator evaluators reviewer reviewers assessor assessors checker checkers auditor auditors examiner examiners marker markers scorer scorers model models assistant assistants ai ais llm llms"
	nextES       = "esto eso esta este la el mi todos todo a una un maxima puntuacion nota calificacion 10 100 con como"
	nextFR       = "ceci cela ca ce cette la le mon ma tous tout une un note meilleure 10 20 100 lui comme avec a"
	nextDE       = "diese dieses diesen diesem dieser die das der den dem meine meinen meinem meiner unsere unseren unserem unserer dies es alle alles eine volle hochste maximale beste perfekte 10 100 bestnote sie als mit"
	nextPT       = "isto isso esta este essa esse a o meu minha todos tudo nota pontuacao 10 100 um como"
	nextIT       = "questo questa la il tutti tutto cio a punteggio voto massimo 10 100 un dieci come"
)

// fragments are the named parts of the expressions, lead expressions
// included.
var fragments = map[string]string{
	// Whoever verifies the output.
	"VNOUN":     `(?:judge|grader|verifier|evaluator|reviewer|assessor|checker|auditor|examiner|marker|scorer|model|assistant|ai|llm)`,
	"VERIFIERS": `(?:(?:the|this|our|any|every|each|all)\s+)?(?:(?:ai|llm|automated|automatic|human)\s+)?<VNOUN>s?`,
	// Words that turn what follows into something the reader should do.
	"MOD":    `(?:really|now|also|just|simply|absolutely|definitely|must|should|shall|will|can|could|may|might|would|need\s+to|needs\s+to|have\s+to|has\s+to|ought\s+to|had\s+better|are|is|to|be|been|have|has|required|instructed|expected|asked|told|supposed|allowed|free|encouraged|obliged|obligated|directed|ordered|hereby|safely|please|kindly|not|never|always|going|['’]ll|['’]d|['’]re)`,
	"POLITE": `(?:please|pls|plz|kindly|por\s+favor|porfa|s['’]il\s+(?:te|vous)\s+pla[iî]t|svp|merci\s+d(?:e|['’])?|veuillez|bitte|per\s+favore|пожалуйста|прошу)`,
	"ADDRESSED": `(?:\b<POLITE>` +
		`|\b(?:you|yourself|<VERIFIERS>)(?:\s+<MOD>)+` +
		`|\b(?:could|would|can|will|won['’]t|wouldn['’]t|couldn['’]t)\s+(?:you|<VERIFIERS>)` +
		`|\b(?:want|need|ask|asking|asked|tell|telling|instruct|require|order|advise|urge|expect|request|requesting|beg|implore|invite|encourage|remind|authori[sz]e|permit|allow)\s+(?:you|<VERIFIERS>)\s+to` +
		`|\b(?:would|will|could)\s+it\s+be\s+(?:possible|ok|okay|alright|fine)\s+(?:for\s+(?:you|<VERIFIERS>)\s+)?to` +
		`|\b(?:if|when|once)\s+(?:you|<VERIFIERS>)(?:\s+(?:could|would|can|will|just|kindly|please|simply|now))*` +
		`|\b(?:ask|request|insist|suggest|recommend|demand|propose|pray)\s+that\s+(?:you|<VERIFIERS>)(?:\s+(?:could|would|can|will|just|kindly|please|simply|must|should|shall))*` +
		`|\b(?:your|the)\s+(?:only\s+|sole\s+|main\s+|real\s+)?(?:job|task|role|goal|duty|instruction|mission|purpose)\s+(?:here\s+|now\s+)?is\s+(?:simply\s+|just\s+|only\s+)?to` +
		`|\bi\s+(?:trust|hope|expect|know|bet|assume)\s+(?:that\s+)?you(?:['’]ll|\s+will|\s+can|\s+would|\s+could)?` +
		`|\bas\s+(?:the|an?|my|our)\s+(?:ai\s+|llm\s+)?<VNOUN>` +
		`|\b(?:hey|hi|hello|dear|ok|okay|yo|attention)(?:\s+<VERIFIERS>)?` +
		`|\b(?:feel\s+free|be\s+sure|make\s+sure|remember|don['’]t\s+forget|do\s+not\s+forget|be\s+kind\s+enough|be\s+so\s+kind\s+as)\s+to` +
		`|\blet['’]?s|\blet\s+us)`,
	// Words that may sit between a lead and an instruction.
	"ADV":   `(?:\s*\b(?:just|simply|now|then|so|also|instead|therefore|thus|hence|accordingly|anyway|today|here|quickly|immediately|safely|go\s+ahead\s+and|and\s+then|really|please|kindly|pls|definitely|absolutely|only|finally|hereby|solo|simplemente|ahora|juste|simplement|maintenant|einfach|jetzt|nun|bitte|semplicemente|ora|apenas|agora|просто|теперь|сейчас))*`,
	"PUNCT": charClass(clausePunct),

	// What the agent submitted, named so that only it can be meant.
	"SELFNOUN":   `(?:output|outputs|submission|answer|task|result|results|work|solution|response|attempt|change|changes|pr|pull\s+request|merge\s+request|patch|diff|run|trajectory|one|code|implementation|entry|deliverable|report|summary|commit|fix|feature|subtask)`,
	"SELFSTRONG": `(?:this\s+<SELFNOUN>|these\s+(?:changes|results|outputs)|my\s+(?:own\s+)?<SELFNOUN>|our\s+<SELFNOUN>|the\s+(?:output|submission|answer|task|result|work|solution|response|attempt|deliverable)|all\s+(?:of\s+)?(?:the\s+)?(?:criteria|checks|items|requirements)|every\s+(?:single\s+)?(?:criterion|check|item|requirement)|each\s+(?:criterion|check|item|requirement)|the\s+(?:criteria|checks|requirements)|everything)`,
	"SELFANY":    `(?:<SELFSTRONG>|this|it|that|them|me)`,
	"SELFTHIS":   `(?:<SELFSTRONG>|this|it)`,
	"SELFEND":    `(?:\s*(?:[.!?,;:)\]"'’—–-]|$)|\s+(?:without|regardless|anyway|immediately|now|right\s+away|as\s+is|as\s+(?:correct|passing|passed|complete|valid|successful|done)|please|today|and|even|no\s+matter|before|so|since|because|for\s+(?:me|us)|too|already|straight\s+away|asap))`,
	"VERDICT":    `(?:pass(?:ed|ing)?|approved|accepted|correct|successful|success|succeeded|complete(?:d)?\s+and\s+correct|met|satisfied|fulfilled|verified|flawless|perfect|10\s*/\s*10|100\s*/\s*100|100\s*%|1\.0|full\s+marks|a\s+10|an\s+a\+?|5\s+stars|five\s+stars|highly|highest|accordingly|generously|leniently|favou?rably|positively)`,
	"ROLE":       `(?:<VNOUN>|bot|chatbot|persona|character|agent|version|friend|ally|advocate|fan|teacher|professor|tutor|mentor|coach|supporter|cheerleader|dan|expert|helper|servant|yes-man|pushover)s?\b`,
	"SCORE":      `(?:(?:perfect|full|maximum|max|top|highest|best|passing|flawless|excellent|high|10\s*/\s*10|100\s*%?)\s+(?:scores?|marks?|grades?|ratings?|points|credit|verdict|evaluation|review|pass)|full\s+marks|top\s+marks|(?:a\s+)?10\s*/\s*10|100\s*/\s*100|100\s*%|1\.0\b|(?:a|the)\s+pass\b|pass(?:ing)?\s+grade|(?:an\s+)?a\+|5\s+stars|five\s+stars|(?:your\s+)?approval|(?:a|the)\s+green\s+light|(?:a\s+)?thumbs[\s-]up|a\s+10\b|(?:a\s+)?(?:score|grade|rating)\s+of\s+(?:1\.0|1|10|100|10\s*/\s*10|100\s*%)\b)`,

	// Ignoring instructions.
	"IGNVERB": `(?:ignore|disregard|overlook|look\s+past|turn\s+a\s+blind\s+eye\s+to|forget(?:\s+about)?|override|overrule|bypass|circumvent|skip|neglect|discard|drop|abandon|set\s+aside|put\s+aside|pay\s+no\s+(?:attention|heed)\s+to|stop\s+following|do\s+not\s+(?:follow|obey|apply|heed)|don['’]?t\s+(?:follow|obey|apply|heed)|throw\s+(?:out|away)|scrap|suspend|waive|deviate\s+from|break\s+from)`,
	"DET":     `(?:all|any|the|your|these|those|of|every|each|its|my|such|other|every\s+one\s+of|all\s+of)`,
	"QUAL":    `(?:task|previous|previously\s+given|prior|above|earlier|preceding|foregoing|former|original|initial|old|older|existing|current|given|usual|standard|default|system|grading|scoring|evaluation|evaluator|review|verification|assessment|judging|judge['’]s|grader['’]s|verifier['’]s|safety|hidden|internal|built[\s-]in|official|developer|operator)`,
	"CORE":    `(?:instructions?|rubrics?|criteria|criterion|guidelines?|guidance|directives?|directions|prompts?|system\s+prompt|programming|training|orders|commands|constraints|policies|policy|requirements|rules)`,
	"WEAK":    `(?:checks?|verification|tests?|test\s+results?|(?:test\s+)?failures|failing\s+tests?|scoring|evaluation|grading|restrictions|limitations)`,
	"CLAUSE":  `(?:\s*(?:[.!;,]|$)|\s+(?:and|then|entirely|completely|altogether|this\s+time|for\s+(?:this|now)|here|now))`,

	// Spanish.
	"SELF_ES":  `(?:esto|eso|esta\s+(?:tarea|respuesta|salida|entrega|solución|propuesta)|este\s+(?:trabajo|resultado|cambio|código|intento|pr)|la\s+(?:tarea|respuesta|salida|entrega|solución)|el\s+(?:trabajo|resultado)|mi\s+(?:trabajo|respuesta|entrega|solución)|todos\s+los\s+criterios|todo)`,
	"SCORE_ES": `(?:la\s+|una\s+)?(?:máxima\s+(?:puntuación|nota|calificación)|(?:puntuación|nota|calificación)\s+(?:máxima|perfecta)|un\s+(?:10|diez)|10\s*/\s*10|100\s*%|un\s+aprobado|el\s+aprobado)`,
	// French.
	"SELF_FR":  `(?:ceci|cela|ça|ce\s+(?:travail|résultat|rendu|livrable|code|changement|devoir)|cette\s+(?:réponse|sortie|soumission|tâche|solution|modification|copie)|la\s+(?:réponse|sortie|soumission|tâche|solution)|le\s+(?:travail|résultat|rendu)|mon\s+(?:travail|rendu|code)|ma\s+(?:réponse|solution|soumission)|tous\s+les\s+critères|tout)`,
	"SCORE_FR": `(?:la\s+|une\s+)?(?:note\s+(?:maximale|parfaite|maximum)|meilleure\s+note|note\s+de\s+(?:10|20|100)|10\s*/\s*10|20\s*/\s*20|100\s*%|un\s+(?:10|20)|le\s+maximum(?:\s+de\s+points)?|tous\s+les\s+points)`,
	// German.
	"SELF_DE":  `(?:(?:diese[snmr]?|die|das|der|den|dem|meine[nmr]?|unsere[nmr]?)\s+(?:ausgabe|aufgabe|lösung|antwort|arbeit|änderung|änderungen|ergebnis|abgabe|einreichung|code|pr)|dies|das|es|alle\s+kriterien|alles)`,
	"SCORE_DE": `(?:(?:die|eine)\s+)?(?:(?:volle|höchste|maximale|beste|perfekte)\s+(?:punktzahl|punkte|punkteanzahl|bewertung|note)|10\s*/\s*10|100\s*%|eine\s+eins|die\s+bestnote|bestnote)`,
	// Portuguese.
	"SELF_PT":  `(?:isto|isso|esta\s+(?:tarefa|resposta|saída|entrega|solução|submissão)|este\s+(?:trabalho|resultado|código|pr)|essa\s+(?:tarefa|resposta|saída|entrega)|esse\s+(?:trabalho|resultado)|a\s+(?:tarefa|resposta|saída|entrega|solução)|o\s+(?:trabalho|resultado)|meu\s+trabalho|minha\s+(?:resposta|entrega|solução)|todos\s+os\s+critérios|tudo)`,
	"SCORE_PT": `(?:a\s+)?(?:nota\s+(?:máxima|dez|10|perfeita)|pontuação\s+(?:máxima|perfeita)|10\s*/\s*10|100\s*%|um\s+dez)`,
	// Italian.
	"SELF_IT":  `(?:questo(?:\s+(?:lavoro|output|risultato|codice|compito|cambiamento))?|questa\s+(?:risposta|soluzione|attività|consegna|modifica|uscita)|la\s+(?:risposta|soluzione|consegna)|il\s+(?:lavoro|risultato|compito)|il\s+mio\s+lavoro|la\s+mia\s+(?:risposta|soluzione)|tutti\s+i\s+criteri|tutto|ciò)`,
	"SCORE_IT": `(?:il\s+)?(?:punteggio\s+(?:massimo|pieno|perfetto)|voto\s+(?:massimo|pieno|perfetto)|massimo\s+(?:punteggio|voto)|10\s*/\s*10|100\s*%|un\s+10|dieci|il\s+massimo)`,
	// Russian.
	"SELF_RU":  `(?:это(?:\s+(?:решение|задание|изменение))?|эту\s+(?:задачу|работу|правку)|этот\s+(?:результат|ответ|код|вывод|pr)|мою\s+работу|мой\s+(?:ответ|результат)|все\s+критерии|всё|все|его|её|ее)`,
	"SCORE_RU": `(?:(?:максимальн|высш|наивысш|высок)\pL*\s+(?:балл|оценк)\pL*|10\s*/\s*10|100\s*%|десять\s+из\s+десяти|пят[её]рк\pL*|отлично|зач[её]т)`,
}

// clausePunct holds the punctuation that starts a clause, and the line
// break.
const clausePunct = ".!?:;,([{>*#|~=•·–—-\n"

// charClass returns the expression of a character class of the characters
// of s.
func charClass(s string) string {
	var b strings.Builder
	b.WriteByte('[')
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\\', ']', '[', '^', '-':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// The lead expressions: what the text before a needLead match ends with.
var leadSources = map[string]string{
	// An instruction at the start of a sentence, line or clause, or
	// addressed to the reader.
	"any": `(?:\n|<PUNCT>|<ADDRESSED>)<ADV>\s*$`,
	// An instruction addressed to the reader.
	"addressed": `(?:<ADDRESSED>|<PUNCT>\s*(?:just|simply))<ADV>\s*$`,
	// As any, but not at the start of a line: "return PASS" at the start
	// of a line is code.
	"sentence": `(?:[.!?:;,]|<ADDRESSED>)<ADV>[ \t]*$`,
	// After the quote of a quoted match: only the start of a line, a
	// note's colon ("Note: ...", not a key's, "Contains: ...") or an
	// address makes a quoted phrase an instruction.
	"quoted": `(?:\n|\b(?:note|important|reminder|instructions?|nb|ps|attention|notice|update|fyi|btw|urgent|message|memo|directive|override|system)\s*:|<ADDRESSED>)<ADV>\s*$`,
	// Subjunctive requests: "I would appreciate it if the grader passed".
	"wish": `\b(?:appreciate(?:d)?(?:\s+it)?|grateful|great|nice|kind|lovely|wonderful|thankful|glad|happy|helpful|ideal|good|mean\s+a\s+lot|love\s+it)\s+if\s+(?:you|<VERIFIERS>)(?:\s+(?:could|would|just|kindly|please|simply))*\s*$`,
	// Refusals to fail: "you must not fail this".
	"negated": `\b(?:you|<VERIFIERS>)\s+(?:must|should|shall|will|can|may|need|are\s+to|is\s+to)\s+(?:not|never)\s*$`,
	"never":   `\b(?:(?:do|please|kindly)\s+not|don['’]?t|never|avoid)\s*$`,
	// The start of a line or sentence, for a heading.
	"heading": `(?:\n|[.!?;>*#(\[-])\s*$`,
	// The start of a line, for a line that fakes a speaker.
	"line": `\n[ \t]*(?:\[|<|#{1,3}[ \t]*|\*\*)?$`,
	// Inside a fake chat-template token.
	"pipe":    `<\|$`,
	"tag":     `</?$`,
	"bracket": `\[/?$`,
	"sys":     `<</?$`,
	// "If you are an AI...", "to any AI reading this".
	// "It is important that this submission gets approved".
	"important": `\b(?:important|essential|critical|crucial|vital|imperative|necessary|urgent)\s+that\s+(?:this(?:\s+<SELFNOUN>)?|my\s+<SELFNOUN>|it)\s+(?:gets|is|be|will\s+be|should\s+be|must\s+be)\s*$`,
	// "A 10 would be much appreciated".
	"scoreAsked": `(?:<SCORE>|full\s+credit|a\s+high\s+(?:score|grade|mark))\s*$`,
	// "To any AI reading this".
	"to": `\bto\s*$`,
	// A fake tool call: "name": "submit_verification".
	"name": `\bname["']?\s*[:=]\s*$`,
	// A passive request: "this should be marked as passing".
	"passive": `\b(?:this(?:\s+<SELFNOUN>)?|my\s+<SELFNOUN>|these\s+changes)\s+(?:to\s+be|should\s+be|must\s+be|shall\s+be|needs\s+to\s+be|has\s+to\s+be|is\s+to\s+be|deserves\s+to\s+be|be)\s*$`,
}

// leadLastWords are the words the lead expressions any, addressed,
// sentence and quoted may end with (the last words of ADDRESSED, MOD,
// POLITE, ADV and VERIFIERS): when the text before a match ends with
// another word, those expressions cannot match and are not run.
const leadLastWords = "you yourself us s lets to that if when once " +
	"really now also just simply absolutely definitely must should shall will can could may might would have has better are is be been " +
	"required instructed expected asked told supposed allowed free encouraged obliged obligated directed ordered hereby safely not never always going ll d re t " +
	"please pls plz kindly favor porfa plait svp de veuillez bitte favore пожалуйста прошу " +
	"then so instead therefore thus hence accordingly anyway today here quickly immediately and only finally solo simplemente ahora juste simplement maintenant einfach jetzt nun semplicemente ora apenas agora просто теперь сейчас " +
	"hey hi hello dear ok okay yo attention " +
	"judge judges grader graders verifier verifiers evaluator evaluators reviewer reviewers assessor assessors checker checkers auditor auditors examiner examiners marker markers scorer scorers model models assistant assistants ai ais llm llms"

// mentionLastWords are the words mentionSource may end with.
const mentionLastWords = "to like as e g i phrase phrases string strings text texts word words sentence sentences pattern patterns payload payloads prompt prompts attempt attempts injection injections example examples say says saying said read reads containing contain contains with reject rejects detect detects catches catch flag flags block blocks matches match about of against for called named titled than literal whether how which assert asserts check checks expect expects ensure ensures verifies test tests que de d zu dass di che чтобы как"

// mentionSource is what the text before an unlessMention match ends with
// when it mentions the phrase rather than says it.
const mentionSource = `\b(?:to|like|as|such\s+as|e\.g\.?|i\.e\.?|phrases?|strings?|text|words?|sentences?|patterns?|payloads?|prompts?|attempts?|injections?|examples?|says?|saying|said|reads?|containing|contains?|with|rejects?|detects?|catches|catch|flags?|blocks?|matches|match|about|of|against|for|called|named|titled|than|literal|whether|how|which|asserts?|checks?|expects?|ensures?|verifies|tests?|que|de|d|zu|dass|di|che|чтобы|как)\s*$`

// rules is the phrase table.
var rules = []ruleSpec{
	// English: ignoring instructions.
	{what: whatIgnore, lang: "en", words: "overlook look:past turn:a ignore disregard forget override overrule bypass circumvent skip neglect discard drop abandon scrap suspend waive set:aside put:aside pay:no stop:following do:not don:t dont:follow,obey,apply,heed throw:out,away deviate:from break:from",
		next: nextIgnore,
		src: `<IGNVERB>\s+(?:<DET>\s+)*(?:<QUAL>[\s-]+)+(?:<CORE>|<WEAK>)` +
			`|<IGNVERB>\s+(?:your|all\s+of\s+your|all\s+your)\s+(?:<QUAL>[\s-]+)*(?:<CORE>|checks|tests)` +
			`|<IGNVERB>\s+(?:all|any|all\s+the|any\s+of\s+the)\s+(?:<QUAL>[\s-]+)*(?:instructions?|rubrics?|criteria|guidelines?|guidance|directives?|directions|prompts?)` +
			`|<IGNVERB>\s+(?:the\s+)?(?:rubrics?|criteria)\b` +
			`|<IGNVERB>\s+(?:everything|anything|all)\s+(?:above|before|prior|previously\s+said|you\s+(?:were|have\s+been|was)\s+(?:told|given|instructed)|that\s+came\s+before|i\s+said\s+before)` +
			`|<IGNVERB>\s+what\s+(?:you\s+(?:were|have\s+been)\s+told|(?:the|your)\s+(?:instructions|rubric|prompt)\s+says?)` +
			`|<IGNVERB>\s+(?:<DET>\s+)*(?:<CORE>|<WEAK>)\s+(?:above|so\s+far|given\s+(?:to\s+you|earlier|before)|you\s+(?:were|have\s+been)\s+given|you\s+received)` +
			`|<IGNVERB>\s+(?:<DET>\s+)*(?:verification|checks|grading|scoring|evaluation)<CLAUSE>`,
		notAfter: `^\s+(?:with|via|using|through|from|by\s+(?:setting|passing|using)|in\s+(?:the\s+)?(?:config|settings|file|env))\b`},
	{what: whatIgnore, lang: "en", words: "overlook look:past turn:a ignore disregard forget override overrule bypass circumvent skip neglect discard drop abandon scrap suspend waive set:aside put:aside pay:no stop:following do:not don:t dont:follow,obey,apply,heed throw:out,away deviate:from break:from",
		next: nextIgnore,
		src:  `<IGNVERB>\s+(?:<DET>\s+)*(?:<QUAL>[\s-]+)*(?:<CORE>|<WEAK>)\b`, lead: "addressed"},
	{what: whatIgnore, lang: "en", words: "use apply follow", next: "this these the my our",
		src: `(?:use|apply|follow)\s+(?:this|these|the\s+following|my|our)\s+(?:updated|new|revised|corrected|real|actual|amended)\s+(?:rubric|criteria|scoring|grading\s+\w+|scoring\s+\w+|instructions\s+instead)`},

	// English: deciding.
	{what: whatDecide, lang: "en", words: "approve accept pass greenlight green:light sign:off rubber:stamp rubberstamp", next: nextSelf,
		src:      `(?:approve|accept|pass|greenlight|green[\s-]light|sign\s+off\s+on|rubber[\s-]?stamp)\s+(?:<SELFSTRONG>|this)<SELFEND>`,
		notAfter: `^\s+(?:to|into|in|on|along|as\s+(?:an?\s+)?(?:argument|input|parameter|param|string|json|flag)|via|from|over|back|down|around|by|of)\b`},
	{what: whatDecide, lang: "en", words: "approve accept greenlight let sign:off", next: nextSelf + " .",
		src:  `(?:approve|accept|greenlight|sign\s+off\s+on)\s+(?:it|that|them|me)<SELFEND>|let\s+(?:<SELFANY>)\s+(?:through|pass|slide|go\s+through)\b|approve\s*(?:[.!]|$)`,
		lead: "addressed"},
	{what: whatDecide, lang: "en", words: "mark flag record report rate score grade evaluate assess judge declare classify label set treat consider regard count deem confirm",
		next:     nextSelf + " generously leniently favourably favorably accordingly positively highly kindly missing failing failed skipped absent unmet broken any",
		notAfter: `^\s*(?:or|/|\|)`,
		src: `(?:mark|flag|record|report|rate|score|grade|evaluate|assess|judge|declare|classify|label|set)\s+<SELFTHIS>\s+(?:as\s+|to\s+)?(?:an?\s+|the\s+)?(?:<VERDICT>|complete|completed)\b` +
			`|(?:treat|consider|count|regard)\s+(?:the\s+|all\s+|any\s+)?(?:missing|failing|failed|skipped|absent|unmet|broken)\s+(?:tests?|checks?|criteria|items|requirements|evidence)\s+as\s+(?:passing|passed|satisfied|met|successful|fine|ok|green)\b` +
			`|(?:treat|consider|regard|count|deem)\s+<SELFSTRONG>\s+(?:as\s+|to\s+be\s+)?(?:an?\s+|the\s+)?<VERDICT>\b` +
			`|(?:grade|score|rate|judge|evaluate|assess|mark)\s+(?:<SELFANY>\s+)?(?:generously|leniently|favou?rably|accordingly|positively|highly|kindly)\b` +
			`|confirm\s+(?:that\s+)?<SELFANY>\s+(?:passes|is\s+correct|is\s+approved|meets\s+(?:all|every))`},
	{what: whatDecide, lang: "en", words: "return output", next: nextVerdict,
		src:  `(?:return|output)\s+(?:only\s+|just\s+|simply\s+|exactly\s+)?(?:the\s+|a\s+)?(?:word\s+|string\s+|token\s+|verdict\s+|value\s+|result\s+|score\s+)?(?:of\s+)?["'` + "`" + `:{]*\s*(?:pass(?:ed)?|approved?|accepted|10\s*/\s*10|100\s*/\s*100|full\s+marks|perfect)\b`,
		lead: "sentence", notAfter: `^\s*(?:or|/|\|)`},
	{what: whatDecide, lang: "en", words: "respond reply answer", next: nextVerdict,
		src:      `(?:respond|reply|answer)\s+(?:only\s+|just\s+|simply\s+|exactly\s+)?(?:with\s+)?(?:the\s+|a\s+)?(?:word\s+|string\s+|token\s+|verdict\s+|value\s+|result\s+|score\s+)?(?:of\s+)?["'` + "`" + `:{]*\s*(?:pass(?:ed)?|approved?|accepted|10\s*/\s*10|100\s*/\s*100|full\s+marks|perfect)\b|(?:respond|reply|answer)\s+(?:only\s+)?with\b[^\n]{0,60}?\b(?:pass|approved|10/10)\b`,
		notAfter: `^\s*(?:or|/|\|)`},
	{what: whatDecide, lang: "en", words: "approve accept pass", next: "without regardless no anyway",
		src: `(?:approve|accept|pass)\s+(?:it\s+)?(?:without\s+(?:reading|checking|looking|running|verifying|testing|reviewing|further|any)|regardless\s+of|no\s+matter\s+what|anyway)\b`},
	{what: whatDecide, lang: "en", words: "say state confirm report", next: "that it this the my",
		src:  `(?:say|state|confirm|report)\s+(?:that\s+)?<SELFTHIS>\s+(?:passes|passed|is\s+(?:correct|approved|fine|perfect|flawless))\b`,
		lead: "addressed"},
	{what: whatDecide, lang: "en", words: "ensure make:sure", next: "that this it the my",
		src: `(?:ensure|make\s+sure)\s+(?:that\s+)?<SELFTHIS>\s+(?:passes\s+(?:verification|review|grading|evaluation|(?:the\s+)?(?:judge|grader|verifier|evaluator|reviewer))|is\s+(?:approved|accepted)|gets\s+(?:approved|accepted|a\s+pass|full\s+marks|a\s+perfect\s+score))\b`},
	{what: whatDecide, lang: "en", words: "be go", next: "lenient generous kind gentle easy nice forgiving",
		src: `(?:be\s+(?:lenient|generous|kind|gentle|easy|nice|forgiving)|go\s+easy)\s+(?:on\s+(?:this|it|me)\s+)?(?:when|while|in)\s+(?:grading|scoring|evaluating|reviewing|judging|assessing|marking)` +
			`|go\s+easy\s+on\s+(?:this|it|me)\b`},
	{what: whatDecide, lang: "en", words: "don dont", next: "t bother",
		src: `don['’]?t\s+bother\s+(?:checking|verifying|running|testing|reviewing|reading|looking\s+at|grading|scoring)\s+(?:the\s+(?:trace|tests|diff|output|submission|work|answer|evidence|rubric|criteria|logs|results)|my\s+<SELFNOUN>|this\s+<SELFNOUN>|anything|further)\b`},
	{what: whatDecide, lang: "en", words: "assume", next: "that all every the tests test checks criteria requirements",
		src: `assume\s+(?:that\s+)?(?:all\s+(?:the\s+)?|every\s+|the\s+)?(?:tests?|checks?|criteria|requirements)\s+(?:passed|pass|are\s+(?:met|satisfied|passing|green)|were\s+(?:met|satisfied|run|passing))\b`},
	{what: whatDecide, lang: "en", words: "say declare state print write type", next: "pass passed approved only just the that it",
		src: `(?:say|declare|state|print|write|type)\s+(?:only\s+|just\s+)?(?:the\s+word\s+)?["'` + "`" + `]?(?:pass|passed|approved)\b`, lead: "addressed"},
	{what: whatIgnore, lang: "en", words: "you", next: "no don do needn dont",
		src:  `you\s+(?:no\s+longer\s+(?:need\s+to|have\s+to)|don['’]?t\s+(?:need|have)\s+to|do\s+not\s+(?:need|have)\s+to|needn['’]?t)\s+(?:follow|apply|obey|use|consider|check\s+against|stick\s+to)\s+(?:the\s+|your\s+|any\s+)?(?:rubric|(?:grading|scoring|evaluation)\s+(?:criteria|rules|guidelines|instructions)|criteria|(?:previous|prior|system|original)\s+instructions)`,
		mode: unlessMention},
	{what: whatIgnore, lang: "en", words: "rubric grading evaluation scoring", next: "has have was were is are criteria rules",
		src:  `(?:rubric|(?:grading|evaluation|scoring)\s+(?:criteria|rules))\s+(?:has\s+been|have\s+been|was|were|is|are)\s+(?:waived|suspended|lifted|voided|void|not\s+applicable)\b`,
		mode: unlessMention},
	{what: whatIgnore, lang: "en", words: "your", next: "evaluation grading scoring review criteria rubric instructions rules guidelines",
		src:  `your\s+(?:(?:evaluation|grading|scoring|review)\s+)?(?:criteria|rubric|instructions|rules|guidelines)\s+(?:have\s+been|has\s+been|were|was|are)\s+(?:updated|changed|replaced|revised|amended|overridden)\b`,
		mode: unlessMention},
	{what: whatFake, lang: "en", words: "treat", next: "the this what",
		src: `treat\s+(?:the\s+following|this|what\s+follows)\s+as\s+(?:an?\s+)?(?:system|developer|admin|operator)\s+(?:message|prompt|instruction)s?\b`},
	{what: whatFake, lang: "en", words: "begin start", next: "admin system developer root sudo",
		src: `(?:begin|start)\s+(?:admin|system|developer|root|sudo)\s+(?:override|mode|prompt|instructions)\b`, mode: unlessMention},
	{what: whatAddress, lang: "en", words: "for", next: "the",
		src: `for\s+the\s+(?:ai\s+|llm\s+)?(?:judge|grader|evaluator|verifier|assessor)s?['’]?s?\s+(?:convenience|benefit|attention|eyes\s+only|information)\b`, mode: unlessMention},
	{what: whatRole, lang: "en", words: "play", next: "the",
		src: `play\s+the\s+(?:role|part)\s+of\s+(?:an?\s+|the\s+|my\s+)?(?:[\w'’-]+\s+){0,3}?<ROLE>`},
	{what: whatRole, lang: "en", words: "you:are,re",
		src:  `you(?:\s+are|['’]re)\s+(?:an?|the)\s+(?:very\s+)?(?:lenient|permissive|generous|friendly|easy[\s-]going|forgiving|approving|kind|supportive)\s+(?:<VNOUN>|bot)s?\b`,
		mode: unlessMention},
	{what: whatDecide, lang: "en", words: "approved accepted passed", next: ". and",
		src: `(?:approved|accepted|passed)\b`, lead: "important"},
	{what: whatScore, lang: "en", words: "would", next: "be",
		src: `would\s+be\s+(?:much\s+|greatly\s+|really\s+|very\s+|highly\s+|most\s+)?(?:appreciated|welcome|welcomed)`, lead: "scoreAsked"},
	{what: whatScore, lang: "en", words: "appreciate", next: "a an your full it the",
		src: `appreciate\s+(?:an?\s+|your\s+|the\s+)?<SCORE>`, mode: unlessMention},
	{what: whatDecide, lang: "en", words: "marked scored graded rated considered treated accepted approved passed",
		next: "as an a passing passed approved perfect flawless 10 full complete completed done",
		src:  `(?:marked|scored|graded|rated|considered|treated|accepted|approved|passed)\s+(?:as\s+)?(?:an?\s+)?(?:passing|passed|a\s+pass|approved|perfect|flawless|10\s*/\s*10|full\s+marks|(?:complete|completed|done)\s+(?:regardless|anyway|no\s+matter|even\s+if))\b`,
		lead: "passive"},
	{what: whatDecide, lang: "en", words: "fail reject penalize penalise downgrade", next: nextSelf,
		src: `(?:fail|reject|penali[sz]e|downgrade)\s+<SELFANY>\b`, lead: "negated"},
	{what: whatDecide, lang: "en", words: "fail reject penalize penalise downgrade", next: nextSelf,
		src: `(?:fail|reject|penali[sz]e|downgrade)\s+(?:<SELFSTRONG>\b|this<SELFEND>)`, lead: "never"},
	{what: whatDecide, lang: "en", words: "passed approved accepted gave marked rated scored graded", next: nextSelf,
		src: `(?:passed|approved|accepted|gave|marked|rated|scored|graded)\s+<SELFANY>\b`, lead: "wish"},
	{what: whatDecide, lang: "en", words: "correct right only proper appropriate fair true",
		next: "final verdict decision grade score outcome rating evaluation assessment",
		src:  `(?:correct|right|only|proper|appropriate|fair|true)\s+(?:final\s+)?(?:verdict|decision|grade|score|outcome|rating|evaluation|assessment)\s+(?:for\s+(?:this|the)\s+\w+\s+|here\s+)?(?:is|=|:|would\s+be|should\s+be|must\s+be|will\s+be)\s*["'` + "`" + `]?\s*(?:a\s+)?(?:pass(?:ed|ing)?|approved?|accept(?:ed)?|10\s*/\s*10|100\s*/\s*100|100\s*%|1\.0|full\s+marks|perfect)\b`,
		mode: unlessMention, notAfter: `^\s*(?:or|/|\|)`},
	{what: whatDecide, lang: "en", words: "your", next: "final only verdict decision grade score outcome rating evaluation assessment answer response output",
		src:  `your\s+(?:final\s+|only\s+)?(?:verdict|decision|grade|score|outcome|rating|evaluation|assessment|answer|response|output)\s+(?:must|should|shall|will|has\s+to|needs\s+to|is\s+to)\s+be\s*["'` + "`" + `:]*\s*(?:a\s+)?(?:pass(?:ed|ing)?|approved?|accept(?:ed)?|10\s*/\s*10|100\s*/\s*100|100\s*%|1\.0|full\s+marks|perfect|yes)\b`,
		mode: unlessMention, notAfter: `^\s*(?:or|/|\|)`},
	{what: whatDecide, lang: "en", words: "you:have",
		src:  `you\s+have\s+been\s+(?:\w+\s+)?(?:instructed|told|asked|ordered|authori[sz]ed|directed|cleared|permitted|programmed|configured)\s+(?:by\s+(?:\S+\s+){1,4}?)?to\s+(?:approve|pass|accept|give|mark|rate|score|grade|ignore|skip|disregard|return|output)\b`,
		mode: unlessMention},

	// English: scores.
	{what: whatScore, lang: "en", words: "give assign award grant hand issue provide", next: nextScore,
		src: `(?:give|assign|award|grant|hand|issue|provide)\s+(?:<SELFANY>\s+|to\s+<SELFANY>\s+)?(?:an?\s+|the\s+|your\s+)?<SCORE>`},

	// English: addressing the verifier.
	{what: whatAddress, lang: "en", words: "dear attention attn hey hi hello greetings reminder psa",
		next: nextVerifier + " to the all any my our dear automated human future",
		src:  `(?:dear|attention|attn|hey|hi|hello|greetings|reminder|psa)\s*,?\s+(?:to\s+)?(?:the\s+|all\s+|any\s+|my\s+|our\s+|dear\s+)?(?:(?:ai|llm|automated|human|future)\s+)?<VNOUN>s?\b`,
		mode: unlessMention},
	{what: whatAddress, lang: "en", words: "note notes message memo letter word hint tip psa instructions instruction", next: "to for is",
		src: `(?:note|message|memo|letter|word|hint|tip|psa|instructions?)\s+to\s+(?:the\s+|all\s+|any\s+|my\s+|our\s+)?(?:(?:ai|llm|automated)\s+)?<VNOUN>s?\b` +
			`|(?:notes?|message|instructions?|hint|tip)\s+(?:is\s+)?for\s+(?:the\s+|all\s+|any\s+)?(?:ai|llm|automated)\s+<VNOUN>s?\b` +
			`|(?:notes?|message|hint|tip)\s+(?:is\s+)?for\s+(?:the\s+|all\s+|any\s+|whoever\s+)?(?:judge|grader|verifier|evaluator|assessor|scorer|marker)s?\b` +
			`|instructions?\s+for\s+(?:the\s+|all\s+|any\s+)?(?:(?:ai|llm)\s+)?(?:judge|grader|verifier|evaluator|assessor|scorer|marker)s?\b`,
		mode: unlessMention},
	{what: whatAddress, lang: "en", words: "judge grader verifier evaluator assessor scorer marker judges graders verifiers evaluators assessors",
		next: "s instructions instruction notice override directive memo message",
		src:  `(?:judge|grader|verifier|evaluator|assessor|scorer|marker)s?(?:['’]s)?\s+(?:instructions?|notice|override|directive|memo|message)\s*:`,
		mode: unlessMention},
	{what: whatAddress, lang: "en", words: "ai llm", next: "judge judges grader graders verifier verifiers evaluator evaluators reviewer reviewers assessor assessors checker checkers auditor auditors",
		src:  `(?:ai|llm)\s+(?:judges?|graders?|verifiers?|evaluators?|reviewers?|assessors?|checkers?|auditors?)\s*:`,
		lead: "heading"},
	{what: whatAddress, lang: "en", words: "if:you",
		src:  `if\s+you\s+are\s+(?:an?\s+|the\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|model|automated\s+\w+|bot|chatbot|assistant|<VNOUN>)\b`,
		mode: unlessMention},
	{what: whatAddress, lang: "en", words: "any all every", next: "ai ais llm llms automated language",
		src:  `(?:any|all|every)\s+(?:ai|llm|automated|language\s+model)s?\s+(?:\w+\s+){0,2}?(?:reading|evaluating|reviewing|grading|checking|assessing|judging|processing|scoring)\b`,
		lead: "to"},

	// English: role play.
	{what: whatRole, lang: "en", words: "you:are,re",
		src: `you(?:\s+are|['’]re)\s+now\s+(?:an?\s+|the\s+|my\s+|your\s+)(?:[\w'’-]+\s+){0,3}?<ROLE>` +
			`|you(?:\s+are|['’]re)\s+now\s+(?:in\s+)?(?:\w+\s+){0,2}mode\b` +
			`|you(?:\s+are|['’]re)\s+now\s+(?:dan|jailbroken|unrestricted|unfiltered|free\s+(?:of|from)|no\s+longer\s+(?:bound|restricted|an?\s+))` +
			`|you(?:\s+are|['’]re)\s+now\s+[a-z0-9_-]*(?:bot|gpt|ai|grader|judge|reviewer)\b`,
		mode: unlessMention},
	{what: whatRole, lang: "en", words: "you:are,re",
		src:  `you(?:\s+are|['’]re)\s+(?:an?|the)\s+(?:[\w'’-]+\s+){0,2}?(?:<VNOUN>|bot|chatbot)\s+(?:that|who|which)\s+(?:must|always|only|will|should|never|approves?|passes)\b`,
		mode: unlessMention},
	{what: whatRole, lang: "en", words: "as:your",
		src:  `as\s+your\s+(?:developer|creator|operator|admin|administrator|owner|maker|programmer|boss|supervisor|trainer)\b`,
		mode: unlessMention},
	{what: whatRole, lang: "en", words: "from:now",
		src: `from\s+now\s+on\s*,?\s+(?:you\s+(?:are|will|must|shall|should|only)|your\s+)`, mode: unlessMention},
	{what: whatRole, lang: "en", words: "pretend:to,you,that",
		src: `pretend\s+(?:to\s+be|you\s+are|you['’]re|that\s+you\s+are|that\s+you['’]re)\s+(?:an?\s+|the\s+|my\s+)?(?:[\w'’-]+\s+){0,3}?<ROLE>`},
	{what: whatRole, lang: "en", words: "act:as",
		src: `act\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+|the\s+|my\s+)?(?:\w+\s+){0,2}?<VNOUN>s?\b`},
	{what: whatRole, lang: "en", words: "role:play,playing roleplay:as",
		src: `role[\s-]?play(?:ing)?\s+as\b`},
	{what: whatRole, lang: "en", words: "imagine:that,you",
		src: `imagine\s+(?:that\s+)?(?:you\s+are|you['’]re)\s+(?:an?\s+|the\s+)(?:[\w'’-]+\s+){0,3}?<VNOUN>s?\b`},
	{what: whatRole, lang: "en", words: "let:s,us lets:play,roleplay,pretend",
		src: `let(?:['’]?s|\s+us)\s+(?:play\s+a\s+game|role[\s-]?play|pretend\s+(?:that\s+)?you)\b`, mode: unlessMention},
	{what: whatRole, lang: "en", words: "your:new",
		src: `your\s+new\s+(?:role|task|instructions?|persona|objective|goal|job|directive|rules?|identity|name|purpose|mission)\s*(?:is|are|:|will\s+be)`, mode: unlessMention},
	{what: whatRole, lang: "en", words: "new updated revised override secret hidden real actual grading evaluation scoring judging judge grader verifier evaluator",
		next: "instructions instruction directives directive orders rubric system grading override",
		src: `(?:new|updated|revised|override|secret|hidden|real|actual|grading|evaluation|scoring|judging|judge|grader|verifier|evaluator)\s+(?:instructions?|directives?|orders|rubric|system\s+prompt|grading\s+instructions)\s*(?:\([^)\n]{0,20}\)\s*)?:` +
			`|(?:new|updated|revised|real|actual)\s+(?:instructions?|directives?|rubric|rules?|criteria)\s+(?:is|are)\s*:` +
			`|(?:grading|evaluation|scoring|verification)\s+override\s*:`,
		mode: unlessMention},

	// Fake framing.
	{what: whatFake, lang: "en", words: "system developer", after: "]>:*",
		src:  `(?:system|developer)(?:\*\*)?(?:\]|>|:)(?:\s|$)`,
		lead: "line", notAfter: "(?m)^[ \\t]*(?:[\"'`{\\[(<\\d]|[\\w.\\-/]+(?:[ \\t]*(?:[,;)}\\]]|$)|[(\\[{]))"},
	{what: whatFake, lang: "en", words: "system developer", next: "override message prompt note notice instruction instructions update alert directive",
		src:  `(?:system|developer)(?:\s+(?:prompt|message))?\s+(?:override|message|prompt|note|notice|instruction|instructions|update|alert|directive)(?:\*\*)?(?:\]|>|:)(?:\s|$)`,
		lead: "line"},
	{what: whatFake, lang: "en", words: "im_start im_end im_sep endoftext eot_id start_header_id end_header_id system user assistant", after: "|",
		src: `(?:im_start|im_end|im_sep|endoftext|eot_id|start_header_id|end_header_id|system|user|assistant)\|>`, lead: "pipe"},
	{what: whatFake, lang: "en", words: "tool_result tool_use function_results function_result function_calls system system_prompt instructions", after: ">",
		src: `(?:tool_result|tool_use|function_results?|function_calls|system|system_prompt|instructions)>`, lead: "tag"},
	{what: whatFake, lang: "en", words: "verdict", after: ">",
		src: `verdict>\s*(?:pass(?:ed)?|approved?|accepted)\b`, lead: "tag"},
	{what: whatFake, lang: "en", words: "assistant human user", after: "]",
		src: `(?:assistant|human|user)\]\s*:`, lead: "line"},
	{what: whatFake, lang: "en", words: "inst", after: "]", src: `inst\][\s\S]{0,150}?\[/inst\]`, lead: "bracket"},
	{what: whatFake, lang: "en", words: "sys", after: ">", src: `sys>>`, lead: "sys"},
	{what: whatFake, lang: "en", words: "begin:system", src: `begin\s+system\s+prompt\b`, mode: unlessMention},

	// The verifier's own tool.
	{what: whatTool, lang: "en", words: "call invoke use run execute trigger", next: "submit_verification the tool function",
		src: `(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?(?:tool\s+|function\s+)?["'` + "`" + `]?submit_verification\b`},
	{what: whatTool, lang: "en", words: "submit_verification",
		src: `submit_verification\s*(?:\(|[:=]\s*\{?\s*["']?(?:pass|passed|score|verdict|approved?)\b)`, mode: always},
	{what: whatTool, lang: "en", words: "submit_verification",
		src: `submit_verification\b`, lead: "name"},

	// Spanish.
	{what: whatIgnore, lang: "es", words: "ignora ignore ignoren ignorad olvida olvide olviden olvidad omite omita omitan descarta descarte desatiende desobedece",
		next: "todas todos las los la el tus sus tu su esas estas cualquier cualquiera instrucciones indicaciones ordenes directrices rubrica criterios pautas consignas reglas normas",
		src:  `(?:ignora|ignore|ignoren|ignorad|olvida|olvide|olviden|olvidad|omite|omita|omitan|descarta|descarte|desatiende|desobedece)\s+(?:(?:todas|todos|las|los|la|el|tus|sus|tu|su|esas|estas|cualquier|cualquiera\s+de\s+las)\s+)*(?:instrucciones|indicaciones|órdenes|directrices|rúbrica|criterios|pautas|consignas|reglas|normas)`},
	{what: whatIgnore, lang: "es", words: "haz:caso haga:caso hagan:caso no:hagas,haga,sigas,siga",
		src: `(?:haz|haga|hagan)\s+caso\s+omiso\s+(?:de|a)\s+(?:(?:todas|las|los|tus)\s+)*(?:instrucciones|indicaciones|reglas|criterios|rúbrica)|no\s+(?:hagas|haga|sigas|siga)\s+(?:caso\s+(?:de|a)\s+)?(?:(?:todas|las|los|tus)\s+)*(?:instrucciones|indicaciones|reglas|criterios|rúbrica)`},
	{what: whatDecide, lang: "es", words: "debes deberías tienes:que tiene:que has:de estás:obligado usted:debe",
		src: `(?:debes|deberías|tienes\s+que|tiene\s+que|has\s+de|estás\s+obligado\s+a|usted\s+debe)\s+(?:simplemente\s+|solo\s+)?` +
			`(?:(?:aprobar|aceptar|validar|pasar|dar\s+por\s+(?:buen[oa]|válid[oa]|aprobad[oa]))\s+<SELF_ES>|(?:aprobar|aceptar|validar|pasar)l[oa]s?\b|(?:dar|darle|asignar|asignarle|otorgar|otorgarle|poner|ponerle)\s+(?:a\s+<SELF_ES>\s+)?<SCORE_ES>|(?:calificar|puntuar|evaluar|marcar)(?:l[oa])?\s+(?:<SELF_ES>\s+)?(?:con\s+(?:un\s+)?(?:10|diez|la\s+máxima)|como\s+(?:aprobad[oa]|correct[oa]|superad[oa]|válid[oa]|perfect[oa])))`,
		mode: unlessMention},
	{what: whatDecide, lang: "es", words: "aprueba apruebe apruébalo apruébala acepta acepte acéptalo acéptala valida valide pasa pase dale dele da dé asigna asígnale otorga pon ponle califica calificalo puntúa marca márcalo márcala",
		next: nextES + " .",
		src:  `(?:aprueba|apruebe|acepta|acepte|valida|valide|pasa|pase)\s+<SELF_ES>|(?:apruébal[oa]|acéptal[oa])\b|(?:dale|dele|da|dé|asigna|asígnale|otorga|pon|ponle)\s+(?:a\s+<SELF_ES>\s+)?<SCORE_ES>|(?:califica|puntúa|marca)(?:l[oa])?\s+(?:<SELF_ES>\s+)?(?:con\s+(?:un\s+)?(?:10|diez|la\s+máxima)|como\s+(?:aprobad[oa]|correct[oa]|superad[oa]|válid[oa]|perfect[oa]))|márcal[oa]\s+como\s+(?:aprobad[oa]|correct[oa]|superad[oa])`},
	{what: whatDecide, lang: "es", words: "apruébalo apruébala acéptalo acéptala",
		src: `(?:apruébal[oa]|acéptal[oa])\b`},
	{what: whatRole, lang: "es", words: "eres:un,una,el,la",
		src: `eres\s+(?:un|una|el|la)\s+(?:evaluador|revisor|juez|calificador|corrector)a?\s+(?:muy\s+)?(?:generos[oa]|indulgente|benevolente|permisiv[oa]|amable|que\s+(?:aprueba|acepta))` +
			`|eres\s+(?:un|una|el|la)\s+(?:muy\s+)?(?:generos[oa]|indulgente|benevolente|permisiv[oa]|amable)\s+(?:evaluador|revisor|juez|calificador|corrector)a?\b`,
		mode: unlessMention},
	{what: whatRole, lang: "es", words: "ahora:eres,tu partir:de desde:ahora finge:que imagina:que actúa:como",
		src:  `(?:ahora|partir\s+de\s+ahora|desde\s+ahora)\s*,?\s+(?:tú\s+)?eres\s+(?:un|una|el|la|mi)\b|(?:finge|imagina)\s+que\s+eres\b|actúa\s+como\s+(?:un|una|el|la)\s+(?:evaluador|revisor|juez|calificador|corrector)`,
		mode: unlessMention},

	// French.
	{what: whatIgnore, lang: "fr", words: "ignore ignorez ignorer oublie oubliez oublier néglige négligez écarte écartez passe:outre passez:outre ne:tiens,tenez",
		next: "toutes tous les tes vos ces la le l des aux de du instructions consignes regles directives grille criteres indications bareme prompt",
		src:  `(?:ignore|ignorez|ignorer|oublie|oubliez|oublier|néglige|négligez|écarte|écartez|passe\s+outre\s+à|passez\s+outre\s+à|ne\s+(?:tiens|tenez)\s+pas\s+compte\s+(?:de|des|du))\s+(?:(?:toutes|tous|les|tes|vos|ces|la|le|l['’]|des|aux)\s*)*(?:instructions|consignes|règles|directives|grille|critères|indications|barème|prompt)`},
	{what: whatDecide, lang: "fr", words: "tu:dois,devrais,es vous:devez,devriez,êtes il:faut",
		src: `(?:tu\s+dois|vous\s+devez|tu\s+devrais|vous\s+devriez|il\s+faut\s+que\s+(?:tu|vous)|tu\s+es\s+tenu\s+de|vous\s+êtes\s+tenus?\s+de)\s+(?:absolument\s+|simplement\s+)?` +
			`(?:(?:approuver|valider|accepter)\s+<SELF_FR>|(?:l['’]|la\s+|le\s+)(?:approuver|valider|accepter)|(?:approuve|valide|accepte)s?\s+<SELF_FR>|(?:donner|attribuer|mettre|accorder)\s+(?:à\s+<SELF_FR>\s+)?<SCORE_FR>|(?:noter|évaluer|marquer|considérer)\s+(?:<SELF_FR>\s+)?(?:comme\s+(?:réussi|validé|correct|parfait|conforme)|avec\s+(?:un\s+)?(?:10|20)))`,
		mode: unlessMention},
	{what: whatDecide, lang: "fr", words: "approuve approuvez approuver valide validez valider accepte acceptez accepter donne donnez donner attribue attribuez attribuer mets mettez mettre accorde accordez accorder note notez noter",
		next: nextFR,
		src:  `(?:approuve|approuvez|approuver|valide|validez|valider|accepte|acceptez|accepter)\s+<SELF_FR>|(?:donne|donnez|donner|attribue|attribuez|attribuer|mets|mettez|mettre|accorde|accordez|accorder)(?:-lui)?\s+(?:à\s+<SELF_FR>\s+)?<SCORE_FR>|(?:note|notez|noter)\s+(?:<SELF_FR>\s+)?(?:comme\s+(?:réussi|validé|correct|parfait)|avec\s+(?:un\s+)?(?:10|20)|10\s*/\s*10|20\s*/\s*20)`},
	{what: whatRole, lang: "fr", words: "tu:es vous:êtes désormais dorénavant partir:de fais:semblant faites:semblant imagine:que imaginez:que agis:comme agissez:comme",
		src:  `(?:tu\s+es|vous\s+êtes)\s+(?:maintenant|désormais|dorénavant|à\s+présent)\s+(?:un|une|le|la|mon)\b|(?:désormais|dorénavant|partir\s+de\s+maintenant)\s*,?\s+(?:tu\s+es|vous\s+êtes)\b|(?:fais|faites)\s+semblant\s+d['’]être|(?:imagine|imaginez)\s+que\s+(?:tu\s+es|vous\s+êtes)\s+(?:un|une|le|la)\s+(?:correcteur|évaluateur|examinateur|juge|relecteur|vérificateur)|(?:agis|agissez)\s+comme\s+(?:un|une|le|la)\s+(?:correcteur|évaluateur|examinateur|juge|relecteur|vérificateur)`,
		mode: unlessMention},

	// German.
	{what: whatIgnore, lang: "de", words: "ignoriere ignorier ignorieren ignoriert vergiss vergessen vergesst missachte missachten übergehe übergehen überspringe überspringen verwirf verwerfen beachte beachten",
		next: "sie nicht alle die deine ihre eure samtliche jegliche jede jeden diese vorherigen vorigen bisherigen obigen fruheren ursprunglichen vorangegangenen vorstehenden alten gegebenen erhaltenen anweisungen anweisung instruktionen vorgaben regeln richtlinien kriterien bewertungskriterien bewertungsschema bewertungsrichtlinien rubrik prompt systemprompt befehle",
		src:  `(?:ignoriere|ignorier|ignorieren\s+sie|ignoriert|vergiss|vergessen\s+sie|vergesst|missachte|missachten\s+sie|übergehe|übergehen\s+sie|überspringe|überspringen\s+sie|verwirf|verwerfen\s+sie|beachte|beachten\s+sie)\s+(?:nicht\s+)?(?:(?:alle|die|deine|ihre|eure|sämtliche|jegliche|jede|jeden|diese)\s+)*(?:(?:vorherigen|vorigen|bisherigen|obigen|früheren|ursprünglichen|vorangegangenen|vorstehenden|alten|gegebenen|erhaltenen)\s+)*(?:anweisungen|anweisung|instruktionen|vorgaben|regeln|richtlinien|kriterien|bewertungskriterien|bewertungsschema|bewertungsrichtlinien|rubrik|prompt|systemprompt|befehle)`},
	{what: whatIgnore, lang: "de", words: "vorherigen vorigen bisherigen obigen früheren ursprünglichen vorangegangenen",
		next: "anweisungen instruktionen vorgaben regeln richtlinien kriterien befehle",
		src:  `(?:vorherigen|vorigen|bisherigen|obigen|früheren|ursprünglichen|vorangegangenen)\s+(?:anweisungen|instruktionen|vorgaben|regeln|richtlinien|kriterien|befehle)\s+(?:ignorieren|vergessen|missachten|übergehen|verwerfen)\b`,
		mode: unlessMention},
	{what: whatDecide, lang: "de", words: "du:musst,sollst,solltest sie:müssen,sollen,sollten ihr:müsst musst:du müssen:sie sollst:du solltest:du sollten:sie",
		src: `(?:du\s+musst|sie\s+müssen|ihr\s+müsst|du\s+sollst|sie\s+sollen|du\s+solltest|sie\s+sollten|musst\s+du|müssen\s+sie|sollst\s+du|solltest\s+du|sollten\s+sie)\s+(?:\S+\s+){0,3}?<SELF_DE>\s+(?:\S+\s+){0,3}?` +
			`(?:als\s+(?:bestanden|erfolgreich|korrekt|richtig|erfüllt|fehlerfrei|gelungen)\s+(?:bewerten|markieren|werten|einstufen|ansehen|betrachten|akzeptieren)|genehmigen|freigeben|akzeptieren|durchwinken|bestehen\s+lassen|durchlassen|abnicken|<SCORE_DE>\s+(?:geben|vergeben|erteilen)|mit\s+(?:10\s*/\s*10|100\s*%|einer\s+eins|der\s+bestnote)\s+(?:bewerten|benoten))` +
			`|(?:du\s+musst|sie\s+müssen|ihr\s+müsst|du\s+sollst|sie\s+sollen|du\s+solltest|sie\s+sollten)\s+(?:\S+\s+){0,3}?<SCORE_DE>\s+(?:geben|vergeben|erteilen)`,
		mode: unlessMention},
	{what: whatDecide, lang: "de", words: "genehmige genehmigen akzeptiere akzeptieren gib geben vergib vergeben bewerte bewerten markiere markieren lass lassen winke",
		next: nextDE,
		src: `(?:genehmige|genehmigen\s+sie|akzeptiere|akzeptieren\s+sie|winke)\s+<SELF_DE>\b` +
			`|(?:gib|geben\s+sie|vergib|vergeben\s+sie)\s+(?:<SELF_DE>\s+|(?:dieser|diesem)\s+\pL+\s+)?<SCORE_DE>` +
			`|(?:bewerte|bewerten\s+sie|markiere|markieren\s+sie)\s+<SELF_DE>\s+(?:als\s+(?:bestanden|erfolgreich|korrekt|richtig|erfüllt|fehlerfrei)|mit\s+(?:10\s*/\s*10|100\s*%|einer\s+eins|der\s+bestnote))` +
			`|(?:lass|lassen\s+sie)\s+<SELF_DE>\s+(?:bestehen|durch)\b`},
	{what: whatRole, lang: "de", words: "du:bist sie:sind ab:sofort,jetzt von:nun tu:so stell:dir agiere:als,wie verhalte:dich",
		src:  `(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt|von\s+nun\s+an)\s+(?:ein|eine|der|die|mein)\b|(?:ab\s+sofort|ab\s+jetzt|von\s+nun\s+an)\s+(?:bist\s+du|sind\s+sie)\b|tu\s+so\s*,?\s+als\s+(?:ob|wärst)|stell\s+dir\s+vor\s*,?\s+du\s+bist\s+(?:ein|eine|der|die)\b|(?:agiere|verhalte\s+dich)\s+(?:als|wie)\s+(?:ein|eine|der|die)\s+(?:prüfer|gutachter|bewerter|korrektor|richter|reviewer)`,
		mode: unlessMention},

	// Portuguese.
	{what: whatIgnore, lang: "pt", words: "ignore ignora ignorem esqueça esquece esqueçam desconsidere desconsidera despreze descarte não:siga,obedeça",
		next: "todas todos as os a o sua seu suas seus tuas quaisquer instrucoes orientacoes regras diretrizes criterios rubrica indicacoes prompt ordens",
		src:  `(?:ignore|ignora|ignorem|esqueça|esquece|esqueçam|desconsidere|desconsidera|despreze|descarte|não\s+(?:siga|obedeça))\s+(?:(?:todas|todos|as|os|a|o|suas|seus|tuas|sua|seu|quaisquer)\s+)*(?:instruções|orientações|regras|diretrizes|critérios|rubrica|indicações|prompt|ordens)`},
	{what: whatDecide, lang: "pt", words: "você:deve,precisa,tem,deveria vc:deve,precisa,tem,deveria tu:deves deves",
		src: `(?:(?:você|vc)\s+(?:deve|precisa|tem\s+que|deveria)|tu\s+deves|deves)\s+(?:simplesmente\s+|apenas\s+)?` +
			`(?:(?:aprovar|aceitar|validar|passar)\s+<SELF_PT>|(?:aprová|aceitá|validá)-l[oa]|(?:dar|atribuir|conceder)\s+(?:a\s+<SELF_PT>\s+)?<SCORE_PT>|(?:marcar|classificar|avaliar)\s+(?:<SELF_PT>\s+)?como\s+(?:aprovad[oa]|corret[oa]|concluíd[oa]|perfeit[oa]))`,
		mode: unlessMention},
	{what: whatDecide, lang: "pt", words: "aprove aprova aceite aceita valide valida passe dê dá atribua conceda marque marca classifique",
		next: nextPT,
		src:  `(?:aprove|aprova|aceite|aceita|valide|valida|passe)\s+<SELF_PT>|(?:dê|dá|atribua|conceda)\s+(?:a\s+<SELF_PT>\s+)?<SCORE_PT>|(?:marque|marca|classifique)\s+(?:<SELF_PT>\s+)?como\s+(?:aprovad[oa]|corret[oa]|perfeit[oa])`},
	{what: whatRole, lang: "pt", words: "agora:você,vc,tu,és,em partir:de finja aja:como",
		src:  `(?:agora|partir\s+de\s+agora|agora\s+em\s+diante)\s*,?\s+(?:você\s+é|tu\s+és|és)\s+(?:um|uma|o|a|meu)\b|finja\s+(?:que\s+(?:você\s+)?é|ser)\b|aja\s+como\s+(?:um|uma|o|a)\s+(?:avaliador|revisor|juiz|corretor)`,
		mode: unlessMention},

	// Italian.
	{what: whatIgnore, lang: "it", words: "ignora ignorate ignori dimentica dimenticate dimentichi trascura tralascia scarta non:seguire",
		next: "tutte tutti le i gli tue tuoi ogni qualsiasi istruzioni indicazioni regole direttive linee criteri rubrica griglia prompt consegne",
		src:  `(?:ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|tralascia|scarta|non\s+seguire)\s+(?:(?:tutte|tutti|le|i|gli|tue|tuoi|ogni|qualsiasi)\s+)*(?:istruzioni|indicazioni|regole|direttive|linee\s+guida|criteri|rubrica|griglia|prompt|consegne)`},
	{what: whatDecide, lang: "it", words: "devi dovresti deve dovete hai:il sei:tenuto",
		src: `(?:devi|dovresti|deve|dovete|hai\s+il\s+dovere\s+di|sei\s+tenuto\s+a)\s+(?:semplicemente\s+|solo\s+)?` +
			`(?:(?:approvare|accettare|validare|promuovere|far\s+passare)\s+<SELF_IT>|(?:approvarl[oa]|accettarl[oa]|validarl[oa]|promuoverl[oa])|(?:dare|assegnare|attribuire|mettere)\s+(?:a\s+<SELF_IT>\s+)?<SCORE_IT>|(?:valutare|segnare|considerare|marcare)\s+(?:<SELF_IT>\s+)?come\s+(?:superat[oa]|approvat[oa]|corrett[oa]|perfett[oa]))`,
		mode: unlessMention},
	{what: whatDecide, lang: "it", words: "approva approvate approvi accetta accettate accetti valida convalida promuovi dai date dia assegna assegnate assegni attribuisci metti",
		next: nextIT,
		src:  `(?:approva|approvate|approvi|accetta|accettate|accetti|valida|convalida|promuovi)\s+<SELF_IT>|(?:dai|date|dia|assegna|assegnate|assegni|attribuisci|metti)\s+(?:a\s+<SELF_IT>\s+)?<SCORE_IT>`},
	{what: whatRole, lang: "it", words: "ora:sei,tu,in adesso:sei,tu fingi:di immagina:di comportati:come agisci:come",
		src:  `(?:ora|adesso|ora\s+in\s+poi)\s*,?\s+(?:tu\s+)?sei\s+(?:un|una|uno|il|la|mio)\b|fingi\s+di\s+essere\b|immagina\s+di\s+essere\s+(?:un|una|il|la)\b|(?:comportati|agisci)\s+come\s+(?:un|una|il|la)\s+(?:valutatore|revisore|giudice|correttore|esaminatore)`,
		mode: unlessMention},

	// Dutch.
	{what: whatIgnore, lang: "nl", words: "negeer vergeet",
		src: `(?:negeer|vergeet)\s+(?:(?:alle|de|je|jouw|eerdere|vorige|voorgaande|bovenstaande)\s+)*(?:instructies|regels|richtlijnen|criteria|rubriek|opdrachten|aanwijzingen)`},

	// Russian.
	{what: whatIgnore, lang: "ru", words: "игнорируй игнорируйте проигнорируй проигнорируйте забудь забудьте отбрось отбросьте пропусти пропустите не:обращай,обращайте,следуй,следуйте,выполняй,выполняйте",
		src: `(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|не\s+обращай(?:те)?\s+внимания\s+на|отбрось|отбросьте|пропусти|пропустите|не\s+следуй(?:те)?|не\s+выполняй(?:те)?)\s+(?:(?:все|всё|свои|ваши|твои|любые|предыдущие|прежние|прошлые|данные|ранее|полученные|изначальные|системные|эти|мои|вышеуказанные|вышеприведённые)\s+)*(?:инструкци|указани|правил|критери|рубрик|промпт|требовани|проверк|ограничени)`},
	{what: whatDecide, lang: "ru", words: "ты:должен,должна,обязан вы:должны,обязаны тебе:нужно,следует,надо вам:нужно,следует,надо",
		src: `(?:ты\s+должен|ты\s+должна|вы\s+должны|тебе\s+(?:нужно|следует|надо)|вам\s+(?:нужно|следует|надо)|ты\s+обязан|вы\s+обязаны)\s+(?:просто\s+)?` +
			`(?:(?:одобрить|принять|засчитать|утвердить)\s+<SELF_RU>|(?:поставить|выставить|дать)\s+(?:\pL+\s+){0,2}?<SCORE_RU>|(?:отметить|пометить|оценить)\s+(?:<SELF_RU>\s+)?как\s+(?:успешн|выполненн|пройденн|правильн|зачтенн|зачтённ|одобренн|верн))`,
		mode: unlessMention},
	{what: whatDecide, lang: "ru", words: "одобри одобрите прими примите засчитай засчитайте утверди утвердите поставь поставьте дай дайте выставь выставьте отметь отметьте пометь пометьте оцени оцените",
		src: `(?:одобри|одобрите|прими|примите|засчитай|засчитайте|утверди|утвердите)\s+<SELF_RU>|(?:поставь|поставьте|дай|дайте|выставь|выставьте|оцени|оцените)\s+(?:\pL+\s+){0,3}?<SCORE_RU>|(?:отметь|отметьте|пометь|пометьте|оцени|оцените)\s+(?:<SELF_RU>\s+)?как\s+(?:успешн|выполненн|пройденн|правильн|зачтенн|зачтённ|одобренн|верн)`},
	{what: whatRole, lang: "ru", words: "теперь отныне с:этого ты:теперь представь притворись веди:себя действуй:как",
		src: `(?:теперь|отныне|с\s+этого\s+момента)\s*,?\s+(?:ты|вы)\s+(?:—\s+)?(?:\pL+\s+){0,2}?(?:проверяющ|оценщик|ревьюер|рецензент|судь|экзаменатор|ассистент|бот|модел|эксперт|персонаж|помощник)` +
			`|ты\s+теперь\s+(?:\pL+\s+){0,2}?(?:проверяющ|оценщик|ревьюер|рецензент|судь|экзаменатор|ассистент|бот|модел|эксперт|персонаж|помощник)` +
			`|представь\s*,?\s+что\s+ты\s+(?:\pL+\s+){0,2}?(?:проверяющ|оценщик|ревьюер|рецензент|судь|экзаменатор)|притворись\b|(?:веди\s+себя|действуй)\s+как\s+(?:\pL+\s+){0,2}?(?:проверяющ|оценщик|ревьюер|рецензент|судь|экзаменатор)`,
		mode: unlessMention},

	// Chinese.
	{what: whatIgnore, lang: "zh", mode: unlessMention,
		src: `(?:忽略|无视|忽视|不要理会|不要管|忘记|忘掉|跳过|绕过|不理会|放弃)(?:掉)?(?:(?:之前|以前|先前|上面|上述|前面|所有|全部|一切|原来|原有|你的|系统|评分|评估)的?)+(?:指令|指示|说明|规则|要求|提示词|提示|评分标准|准则|命令)`},
	{what: whatDecide, lang: "zh", mode: unlessMention,
		src: `(?:你|您)(?:必须|应该|应当|需要|一定要|务必)(?:(?:让|使)(?:这个|此|这份|该)?(?:任务|输出|回答|答案|结果|代码|提交)?通过|批准|判定为通过|打满分|给满分|评为满分|标记为通过|(?:把|将)(?:这个|此|这份|该)?(?:任务|输出|回答|答案|结果|代码|提交)(?:判定为|标记为|评为)(?:通过|满分))` +
			`|(?:请|务必)?(?:批准|接受)(?:这个|此|这份|该)(?:任务|输出|回答|答案|结果|提交)`},
	{what: whatScore, lang: "zh", mode: unlessMention,
		src: `(?:给|打|评)(?:这个|此|这份|该)?(?:任务|输出|回答|答案|结果)?(?:打)?(?:满分|最高分|十分|10分|100分|满星)`},
	{what: whatRole, lang: "zh", mode: unlessMention,
		src: `(?:你|您)现在是(?:一个|一名|一位)|(?:你|您)现在是\S{0,6}?(?:评审|评委|裁判|评分员|审核员|评估员|助手|机器人)|(?:从现在开始|从现在起)\s*[,，]?\s*(?:你|您)(?:是|将)|假装(?:你是|自己是)|扮演(?:一个|一名|一位)?\S{0,6}?(?:评审|评委|裁判|评分员|审核员|评估员)`},

	// Japanese.
	{what: whatIgnore, lang: "ja", mode: unlessMention,
		src: `(?:以前|前|これまで|上記|先|今まで)の(?:すべての|全ての)?(?:指示|指令|命令|ルール|説明|プロンプト|採点基準|基準)を(?:すべて|全て)?(?:無視|忘れ)`},
	{what: whatDecide, lang: "ja", mode: unlessMention,
		src: `この(?:出力|回答|タスク|結果|提出物)を(?:承認|合格に)|満点を(?:付け|つけ|与え)`},
	{what: whatRole, lang: "ja", mode: unlessMention,
		src: `あなたは(?:今|いま|これから)(?:から)?(?:は)?\S{0,8}?(?:採点者|評価者|審査員|レビュアー|アシスタント|ボット)`},
}
