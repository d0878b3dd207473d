use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(allow_secret = " ")]
    password_hint: String,
}

fn main() {}
