use elicit::Elicit;

// A form for the agent's own URL-mode page may ask for a secret.
#[derive(Elicit)]
#[elicit(url_mode)]
struct Login {
    username: String,
    password: String,
    /// Your API token
    token: Option<String>,
}

fn main() {
    const { assert!(<Login as Elicit>::URL_MODE) };
}
