use elicit::Elicit;

#[derive(Elicit, serde::Deserialize)]
struct Form {
    #[serde(rename = "user")]
    #[elicit(rename = "name")]
    name: String,
}

fn main() {}
