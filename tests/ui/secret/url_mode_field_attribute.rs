use elicit::Elicit;

// `url_mode` is said of the form, on the struct, not of one field.
#[derive(Elicit)]
struct Login {
    username: String,
    #[elicit(url_mode)]
    password: String,
}

fn main() {}
