//! The only writer of the form's HTML: markup comes from `&'static str` written in this
//! crate, and every other text goes through `html-escape` on its way in. A schema text
//! cannot reach the output unescaped because no method takes it as markup.

/// HTML under construction.
pub(super) struct Markup {
    out: String,
}

impl Markup {
    pub(super) fn new() -> Self {
        Markup {
            out: String::with_capacity(4096),
        }
    }

    /// `<tag`: attributes follow, then [`Markup::close`].
    pub(super) fn open(&mut self, tag: &'static str) -> &mut Self {
        self.out.push('<');
        self.out.push_str(tag);
        self
    }

    /// ` name="value"`, the value escaped for a double-quoted attribute.
    pub(super) fn attr(&mut self, name: &'static str, value: &str) -> &mut Self {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        html_escape::encode_double_quoted_attribute_to_string(no_nul(value), &mut self.out);
        self.out.push('"');
        self
    }

    /// ` name="value"` when there is a value.
    pub(super) fn attr_opt(&mut self, name: &'static str, value: Option<&str>) -> &mut Self {
        if let Some(value) = value {
            self.attr(name, value);
        }
        self
    }

    /// A boolean attribute (` required`) when `on`.
    pub(super) fn flag(&mut self, name: &'static str, on: bool) -> &mut Self {
        if on {
            self.out.push(' ');
            self.out.push_str(name);
        }
        self
    }

    /// `>`: the end of a start tag.
    pub(super) fn close(&mut self) -> &mut Self {
        self.out.push('>');
        self
    }

    /// `</tag>`.
    pub(super) fn end(&mut self, tag: &'static str) -> &mut Self {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// Markup written in this crate.
    pub(super) fn raw(&mut self, markup: &'static str) -> &mut Self {
        self.out.push_str(markup);
        self
    }

    /// Text, escaped (`&`, `<`, `>`, quotes and `/`).
    pub(super) fn text(&mut self, text: &str) -> &mut Self {
        html_escape::encode_safe_to_string(no_nul(text), &mut self.out);
        self
    }

    /// Text from the agent, escaped and isolated in `<bdi>`, so bidirectional controls
    /// in it cannot reorder the text around it (the agent's name, the labels).
    pub(super) fn agent_text(&mut self, text: &str) -> &mut Self {
        self.raw("<bdi>").text(text).raw("</bdi>")
    }

    pub(super) fn finish(self) -> String {
        self.out
    }
}

/// U+0000 as U+FFFD, which is what an HTML parser makes of it in an attribute (in text
/// it drops it): written so, the page parses without error and shows the text whole.
fn no_nul(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}
