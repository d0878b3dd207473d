//! The characters that hide or rearrange text: one list, shared by the URL review,
//! which warns about them in a URL ([S4](crate::rules#s4)), and by what a terminal
//! client shows of agent text, which never prints them as themselves
//! (`client::terminal_text`, [S5](crate::rules#s5)).

/// Characters that change the display order of text: the explicit embeddings,
/// overrides and isolates, and the implicit marks. With them `…/gpj.exe` can render
/// as `…/exe.jpg`. The URL review warns about the same list.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'                  // ARABIC LETTER MARK
            | '\u{200E}'            // LEFT-TO-RIGHT MARK
            | '\u{200F}'            // RIGHT-TO-LEFT MARK
            | '\u{202A}'..='\u{202E}' // LRE, RLE, PDF, LRO, RLO
            | '\u{2066}'..='\u{2069}' // LRI, RLI, FSI, PDI
    )
}

/// Characters that render as nothing (or as blank) in most fonts, so that two texts
/// that look identical differ, or a name reads as another one. The URL review warns
/// about the same list.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}'                  // NO-BREAK SPACE: looks like a space that is not one
            | '\u{00AD}'            // SOFT HYPHEN
            | '\u{034F}'            // COMBINING GRAPHEME JOINER
            | '\u{115F}' | '\u{1160}' // HANGUL CHOSEONG/JUNGSEONG FILLER
            | '\u{17B4}' | '\u{17B5}' // KHMER VOWEL INHERENT AQ/AA
            | '\u{180B}'..='\u{180F}' // MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
            | '\u{2000}'..='\u{200D}' // typographic spaces, ZWSP, ZWNJ, ZWJ
            | '\u{2028}' | '\u{2029}' // LINE / PARAGRAPH SEPARATOR
            | '\u{202F}' | '\u{205F}' // NARROW NBSP, MEDIUM MATHEMATICAL SPACE
            | '\u{2060}'..='\u{2064}' // WORD JOINER, invisible operators
            | '\u{2800}'            // BRAILLE PATTERN BLANK
            | '\u{206A}'..='\u{206F}' // deprecated format characters
            | '\u{3000}'            // IDEOGRAPHIC SPACE
            | '\u{3164}'            // HANGUL FILLER
            | '\u{FE00}'..='\u{FE0F}' // VARIATION SELECTORS
            | '\u{FEFF}'            // ZERO WIDTH NO-BREAK SPACE (BOM)
            | '\u{FFA0}'            // HALFWIDTH HANGUL FILLER
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
            | '\u{1D173}'..='\u{1D17A}' // musical symbol format characters
            | '\u{E0000}'..='\u{E007F}' // TAG characters (invisible "ASCII smuggling")
            | '\u{E0100}'..='\u{E01EF}' // VARIATION SELECTORS SUPPLEMENT
    )
}
