//! `UrlReview::new` and the agent's `UrlPolicy::check` on arbitrary text. Invariants:
//! no panic; what is displayed is ASCII (nothing hidden or reordered, S2); the
//! registrable domain to highlight ends the host (S4); a URL the agent's policy accepts
//! is reviewable by a client.
#![no_main]

use elicit::agent::UrlPolicy;
use elicit::UrlReview;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let review = UrlReview::new(text);
    if let Ok(review) = &review {
        assert!(
            review.full_url().is_ascii(),
            "the displayed URL must be ASCII"
        );
        if let Some(domain) = review.registrable_domain() {
            assert!(review.host_unicode().ends_with(domain));
        }
        if let Some(domain) = review.registrable_domain_ascii() {
            assert!(review.host_ascii().ends_with(domain));
        }
        for w in review.warnings() {
            assert!(!w.to_string().is_empty());
        }
    }
    if let Ok(url) = UrlPolicy::new().check(text) {
        assert!(
            UrlReview::new(url.as_str()).is_ok(),
            "an agent-approved URL must be reviewable: {url}"
        );
    }
});
