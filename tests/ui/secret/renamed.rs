use elicit::Elicit;

#[derive(Elicit)]
struct Connect {
    #[elicit(rename = "accessToken")]
    credential_value: String,
}

fn main() {}
