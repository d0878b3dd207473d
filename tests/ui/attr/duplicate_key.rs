use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(title = "Name", title = "Your name")]
    name: String,
    #[elicit(min_length = 1)]
    #[elicit(min_length = 2)]
    nick: String,
}

fn main() {}
